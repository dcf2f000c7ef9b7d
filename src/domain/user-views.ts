import type { AdminUserView, UserView } from '../shared/views.js';
import type { RoleGrant } from '../shared/roles.js';
import type { UserRecord } from '../storage/store.js';

/** The public view of a user, as every JSON answer shows it. */
export function userView(user: Pick<UserRecord, 'uin' | 'userGroup' | 'createdAt'>): UserView {
  return { uin: user.uin, user_group: user.userGroup, created_at: new Date(user.createdAt).toISOString() };
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
