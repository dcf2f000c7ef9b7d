import type { AdminUserView, UserView } from '../shared/views.js';
import type { RoleGrant } from '../shared/roles.js';
import type { UserRecord } from '../storage/store.js';

/** How many creation instants `createdAtIso` remembers before it starts again. */
const CREATED_AT_CACHE = 4096;
const createdAtCache = new Map<number, string>();

/**
 * A user's creation instant as ISO 8601, remembered: user information answers it on every request, and a
 * user's never changes (a `Date` and its formatting per request cost more than a look-up).
 */
export function createdAtIso(epochMs: number): string {
  let iso = createdAtCache.get(epochMs);
  if (iso === undefined) {
    iso = new Date(epochMs).toISOString();
    if (createdAtCache.size >= CREATED_AT_CACHE) createdAtCache.clear();
    createdAtCache.set(epochMs, iso);
  }
  return iso;
}

/** The public view of a user, as every JSON answer shows it. */
export function userView(user: Pick<UserRecord, 'uin' | 'userGroup' | 'createdAt'>): UserView {
  return { uin: user.uin, user_group: user.userGroup, created_at: createdAtIso(user.createdAt) };
}

const isoOrNull = (epochMs: number | null): string | null =>
  epochMs === null ? null : new Date(epochMs).toISOString();

/** A user as the admin API shows them: the public view plus the account's state and profile. */
export function adminUserView(
  user: UserRecord,
  lockedUntil: number | null = null,
  secondFactors: readonly ('totp' | 'passkey')[] = [],
  roles: readonly RoleGrant[] = [],
): AdminUserView {
  return {
    ...userView(user),
    disabled: user.disabled,
    name: user.name,
    email: user.email,
    groups: user.groups,
    expires_at: isoOrNull(user.expiresAt),
    last_sign_in_at: isoOrNull(user.lastSignInAt),
    locked_until: isoOrNull(lockedUntil),
    source: user.source,
    second_factors: secondFactors,
    roles,
  };
}
