import type { Clock } from '../clock.js';
import type { ConsentView } from '../shared/views.js';
import type { ConsentWithApp, Store } from '../storage/store.js';

/** An app the user authorized, as the account page shows it. */
export function consentView(consent: ConsentWithApp): ConsentView {
  return {
    client_id: consent.clientId,
    name: consent.name,
    emoji: consent.emoji,
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
  const existed = await store.consents.delete(uin, clientId);
  // Codes first: then no new token can be issued, and the next step revokes any issued meanwhile.
  await store.codes.voidForUserAndApp(uin, clientId, clock.now());
  await store.tokens.revokeForUserAndApp(uin, clientId);
  return existed;
}
