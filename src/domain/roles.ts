/**
 * Delegated administration (docs/interface.md#roles): who holds which role, and whom a role holder may act
 * on. A helpdesk member or auditor reaches the users who carry one of their role's group tags, are not admins
 * and hold no role themselves: so nobody in a role reaches an admin, another role holder or themselves.
 */
import type { Clock } from '../clock.js';
import { type Role, type RoleGrant, mergedGrants, rolesProblem } from '../shared/roles.js';
import type { Store, UserRecord, UserScope } from '../storage/store.js';
import { enforce } from './rule-violation.js';

/** What the role functions read and write. */
export interface RoleDeps {
  readonly store: Store;
  readonly clock: Clock;
}

export function rolesOf(deps: Pick<RoleDeps, 'store'>, uin: number): Promise<RoleGrant[]> {
  return deps.store.roles.forUser(uin);
}

export function rolesOfMany(
  deps: Pick<RoleDeps, 'store'>,
  uins: readonly number[],
): Promise<Map<number, RoleGrant[]>> {
  return deps.store.roles.forUsers(uins);
}

/**
 * Replaces the user's roles (an admin's `PATCH`, the CLI): each role once, with 1 to 32 group tags. The
 * caller has checked that the user exists and that the one asking is an admin.
 */
export async function replaceRoles(deps: RoleDeps, uin: number, grants: readonly RoleGrant[]): Promise<void> {
  const merged = mergedGrants(grants);
  enforce(rolesProblem(merged));
  await deps.store.roles.replace(uin, merged, deps.clock.now());
}

/**
 * The group tags a role holder reaches with any of `roles` (one of them or both): the scope of their lists
 * and of the users they may act on; null when they hold none of these roles.
 */
export function scopeOf(grants: readonly RoleGrant[], roles: readonly Role[]): UserScope | null {
  const tags = new Set<string>();
  for (const grant of grants) if (roles.includes(grant.role)) for (const tag of grant.groups) tags.add(tag);
  return tags.size === 0 ? null : { anyTags: [...tags] };
}

/** Whether `user` (who holds `userRoles`) is one of the people of `scope`: the rule of inScope in storage. */
export function isInScope(
  user: Pick<UserRecord, 'userGroup' | 'groups'>,
  userRoles: readonly RoleGrant[],
  scope: UserScope,
): boolean {
  return (
    user.userGroup !== 'admin' &&
    userRoles.length === 0 &&
    user.groups.some((tag) => scope.anyTags.includes(tag))
  );
}

/** An admin or someone holding a role: a service token changes nothing of theirs. */
export function isPrivileged(user: Pick<UserRecord, 'userGroup'>, userRoles: readonly RoleGrant[]): boolean {
  return user.userGroup === 'admin' || userRoles.length > 0;
}
