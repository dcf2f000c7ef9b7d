import type { Clock } from '../clock.js';
import type { ConsentView } from '../shared/views.js';
import { appIdentityView } from './apps.js';
import type { ConsentRecord, ConsentWithApp, Store } from '../storage/store.js';

/** An app the user authorized, as the account page shows it. */
export function consentView(consent: ConsentWithApp): ConsentView {
  return {
    ...appIdentityView(consent),
    scope: consent.scope,
    granted_at: new Date(consent.grantedAt).toISOString(),
  };
}

/**
 * The user withdraws their consent to an app. Withdrawing also ends what it granted (docs/security.md): the
 * app's codes for this user not yet redeemed are void and its tokens stop working, even when no consent was
 * on record. Answers whether there was one.
 */
export async function withdrawConsent(
  store: Store,
  clock: Clock,
  uin: number,
  clientId: string,
): Promise<boolean> {
  // One transaction (docs/architecture.md#transactions): the consent never goes without its tokens.
  return store.transaction(async (tx) => {
    const existed = await tx.consents.delete(uin, clientId);
    // Codes first: then no new token can be issued, and the next step revokes any issued meanwhile.
    await tx.codes.voidForUserAndApp(uin, clientId, clock.now());
    await tx.tokens.revokeForUserAndApp(uin, clientId);
    return existed;
  });
}

/** The apps a user authorized (docs/interface.md#browser-session-api). */
export class ConsentService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** The user's consents with their apps' names, for the account page and the launcher. */
  listForUser(uin: number): Promise<ConsentWithApp[]> {
    return this.store.consents.listForUser(uin);
  }

  /** The user's consent to one app, if any. */
  find(uin: number, clientId: string): Promise<ConsentRecord | undefined> {
    return this.store.consents.find(uin, clientId);
  }

  /** {@link withdrawConsent}. */
  withdraw(uin: number, clientId: string): Promise<boolean> {
    return withdrawConsent(this.store, this.clock, uin, clientId);
  }
}
