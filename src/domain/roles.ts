/**
 * Delegated administration (docs/interface.md#roles): who holds which role, and whom a role holder may act
 * on. A helpdesk member reaches the users who carry one of their role's group tags, are not admins and hold
 * no role themselves: so no helpdesk member acts on an admin, another role holder or themselves. An auditor,
 * who changes nothing, reads everyone who carries one of their tags.
 */
import type { Clock } from '../clock.js';
import { type Role, type RoleGrant, rolesProblem } from '../shared/roles.js';
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
 * The roles a user may be given, whoever gives them (an admin's `PATCH`, the CLI): each role once, with 1 to
 * 32 group tags, a tag given twice kept once. Throws the rule's violation otherwise.
 */
export function checkedRoles(grants: readonly RoleGrant[]): RoleGrant[] {
  const unique = grants.map((grant) => ({ role: grant.role, groups: [...new Set(grant.groups)] }));
  enforce(rolesProblem(unique));
  return unique;
}

/**
 * Replaces the user's roles (the CLI's `user roles`). The caller has checked that the user exists and that
 * the one asking is an admin; an admin's `PATCH` goes through UserService.changeAsAdmin instead, which writes
 * them in the same transaction as the rest of the change.
 */
export async function replaceRoles(deps: RoleDeps, uin: number, grants: readonly RoleGrant[]): Promise<void> {
  await deps.store.roles.replace(uin, checkedRoles(grants), deps.clock.now());
}

/**
 * The users a role holder reaches with any of `roles` (one of them or both): the scope of their lists and of
 * the users they may act on; null when they hold none of these roles. A helpdesk member's tags reach the
 * people who are no admin and hold no role; an auditor's tags reach everyone carrying them (an auditor only
 * reads, and reads the helpdesk and admins of their groups too).
 */
export function scopeOf(grants: readonly RoleGrant[], roles: readonly Role[]): UserScope | null {
  const people = new Set<string>();
  const everyone = new Set<string>();
  for (const grant of grants) {
    if (!roles.includes(grant.role)) continue;
    for (const tag of grant.groups) (grant.role === 'auditor' ? everyone : people).add(tag);
  }
  if (people.size === 0 && everyone.size === 0) return null;
  return { anyTags: [...people], ...(everyone.size > 0 && { everyoneTags: [...everyone] }) };
}

/** Whether `user` (who holds `userRoles`) is within `scope`: the rule of inScope in storage. */
export function isInScope(
  user: Pick<UserRecord, 'userGroup' | 'groups'>,
  userRoles: readonly RoleGrant[],
  scope: UserScope,
): boolean {
  const carries = (tags: readonly string[] | undefined): boolean =>
    tags !== undefined && user.groups.some((tag) => tags.includes(tag));
  if (carries(scope.everyoneTags)) return true;
  return user.userGroup !== 'admin' && userRoles.length === 0 && carries(scope.anyTags);
}

/** An admin or someone holding a role: a service token changes nothing of theirs. */
export function isPrivileged(user: Pick<UserRecord, 'userGroup'>, userRoles: readonly RoleGrant[]): boolean {
  return user.userGroup === 'admin' || userRoles.length > 0;
}
