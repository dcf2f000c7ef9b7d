/**
 * Who may use an app: `allowed_groups` (docs/interface.md#people-groups-and-audit). The rule itself is
 * `groupsAllow` (src/shared/people.ts, which the pages share); it is checked at authorization, in every grant
 * and on every use of an access token (src/storage/token-rows.ts), and what a user was given before they left
 * the groups ends as soon as either side changes: the functions below, run in the transaction of the change.
 */
import type { Repositories } from '../storage/store.js';
import { groupsAllow } from '../shared/people.js';

type AccessRepositories = Pick<Repositories, 'apps' | 'users' | 'codes' | 'tokens'>;

/** Ends what one user holds for one app: its codes not yet redeemed, then its access and refresh tokens. */
async function endUse(tx: AccessRepositories, uin: number, clientId: string, now: number): Promise<void> {
  // Codes first: then no new token can be issued, and the next step revokes any issued meanwhile.
  await tx.codes.voidForUserAndApp(uin, clientId, now);
  await tx.tokens.revokeForUserAndApp(uin, clientId);
}

/** The user's groups changed to `groups`: their codes and tokens for every app that no longer allows them end. */
export async function endUseOfAppsNoLongerAllowed(
  tx: AccessRepositories,
  uin: number,
  groups: readonly string[],
  now: number,
): Promise<void> {
  for (const app of await tx.apps.list()) {
    if (!groupsAllow(app.allowedGroups, groups)) await endUse(tx, uin, app.clientId, now);
  }
}

/** The app's allowed groups changed: the codes and tokens of every holder outside them end. */
export async function endUseByUsersNoLongerAllowed(
  tx: AccessRepositories,
  clientId: string,
  allowedGroups: readonly string[],
  now: number,
): Promise<void> {
  if (allowedGroups.length === 0) return;
  const holders = await tx.tokens.listHolders(clientId, now);
  for (const user of await tx.users.findMany(holders)) {
    if (!groupsAllow(allowedGroups, user.groups)) await endUse(tx, user.uin, clientId, now);
  }
}
