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
 * The user withdraws their consent to an app. Withdrawing also ends what it granted: the app's tokens for
 * this user stop working, even when no consent was on record. Answers whether there was one.
 */
export async function withdrawConsent(store: Store, uin: number, clientId: string): Promise<boolean> {
  const existed = await store.consents.delete(uin, clientId);
  await store.tokens.revokeForUserAndApp(uin, clientId);
  return existed;
}
