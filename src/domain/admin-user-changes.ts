/** The rules of an admin's change to a user (docs/interface.md#admin-api): what may change, and the last lasting admin. */
import type { RoleGrant } from '../shared/roles.js';
import type { UserGroup } from '../shared/users.js';
import type { UserRecord } from '../storage/store.js';

/** What an admin may change about a user (`PATCH /v1/admin/users/:uin`, the bulk actions). */
export interface UserChanges {
  readonly userGroup?: UserGroup | undefined;
  readonly disabled?: boolean | undefined;
  /** The password policy is enforced here again (passwordProblem), whatever the caller checked. */
  readonly password?: string | undefined;
  /** null clears; all already checked against the profile rules (src/shared/people.ts). */
  readonly name?: string | null | undefined;
  readonly email?: string | null | undefined;
  readonly groups?: readonly string[] | undefined;
  readonly expiresAt?: number | null | undefined;
  /** Replaces the user's roles (docs/interface.md#roles; `[]` removes them), checked again (rolesProblem). */
  readonly roles?: readonly RoleGrant[] | undefined;
}

/**
 * How an admin's change ended. `last-admin`: refused before anything was written, because it would leave no
 * enabled admin. `last-admin-raced`: another change landed at the same moment and together they left none, so
 * this one was written back.
 */
export type AdminChangeOutcome =
  /** `roles`: the roles written, when the change gave any (a tag given twice kept once). */
  | { readonly outcome: 'changed'; readonly user: UserRecord; readonly roles?: readonly RoleGrant[] }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'last-admin' }
  | { readonly outcome: 'last-admin-raced' }
  /** A password for a directory user: refused before anything was written (their directory owns it). */
  | { readonly outcome: 'directory-password' };

/**
 * Whether the user is an admin the service can count on: enabled, and with an account that never expires. An
 * admin whose account expires (or has expired) would leave the service without one once the date passes.
 */
function isLastingAdmin(user: Pick<UserRecord, 'userGroup' | 'disabled' | 'expiresAt'>): boolean {
  return user.userGroup === 'admin' && !user.disabled && user.expiresAt === null;
}

/**
 * Whether the change takes an admin out of the lasting admins (docs/interface.md#admin-api): it demotes or
 * disables them, or gives their account an end date, past or future.
 */
export function removesAnAdmin(user: UserRecord, changes: UserChanges): boolean {
  if (!isLastingAdmin(user)) return false;
  return !isLastingAdmin({
    userGroup: changes.userGroup ?? user.userGroup,
    disabled: changes.disabled ?? user.disabled,
    expiresAt: changes.expiresAt === undefined ? user.expiresAt : changes.expiresAt,
  });
}
