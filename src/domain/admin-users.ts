import type { Store, UserGroup, UserRecord } from '../storage/store.js';
import { userView, type UserView } from './users.js';

/** A user as the admin API shows it: the public view plus whether the account is disabled. */
export interface AdminUserView extends UserView {
  readonly disabled: boolean;
}

export function adminUserView(user: UserRecord): AdminUserView {
  return { ...userView(user), disabled: user.disabled };
}

/** What an admin may change about a user (`PATCH /v1/admin/users/:uin`). */
export interface UserChanges {
  readonly userGroup?: UserGroup | undefined;
  readonly disabled?: boolean | undefined;
}

/** Whether the change takes an enabled admin out of the enabled admins (demotes or disables them). */
export function removesAnAdmin(user: UserRecord, changes: UserChanges): boolean {
  if (user.userGroup !== 'admin' || user.disabled) return false;
  const demoted = changes.userGroup !== undefined && changes.userGroup !== 'admin';
  return demoted || changes.disabled === true;
}

/**
 * SPEC §7 / README: the service must always keep one enabled admin, or nobody could manage it any more.
 * Answers true when applying `changes` to `user` would leave none.
 */
export async function wouldRemoveLastAdmin(
  store: Store,
  user: UserRecord,
  changes: UserChanges,
): Promise<boolean> {
  return removesAnAdmin(user, changes) && (await store.users.countAdmins()) <= 1;
}
