/**
 * Delegated administration (docs/interface.md#roles): the roles a user may hold beside `user_group`, each
 * scoped to group tags. Dependency-free: the pages bundle this module as it is.
 */
import { groupsProblem } from './people.js';

/** `helpdesk`: helps the people of its groups back in; `auditor`: reads them and their audit events. */
export const ROLES = ['helpdesk', 'auditor'] as const;
export type Role = (typeof ROLES)[number];

/** One role and the group tags it covers (at least one). */
export interface RoleGrant {
  readonly role: Role;
  readonly groups: readonly string[];
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Why `grants` may not be a user's roles, or undefined when they may: each role once, 1 to 32 tags each. */
export function rolesProblem(grants: readonly RoleGrant[]): string | undefined {
  const seen = new Set<string>();
  for (const grant of grants) {
    if (!isRole(grant.role)) return `role must be one of ${ROLES.join(', ')}`;
    if (seen.has(grant.role)) return `role ${grant.role} is given twice`;
    seen.add(grant.role);
    if (grant.groups.length === 0) return `role ${grant.role} needs at least one group`;
    const problem = groupsProblem(grant.groups);
    if (problem) return `role ${grant.role}: ${problem}`;
  }
  return undefined;
}

/** `helpdesk:class-2026-3` (the CLI's `--role`): a role and one group tag. */
export function parseRoleOption(text: string): RoleGrant | undefined {
  const colon = text.indexOf(':');
  if (colon === -1) return undefined;
  const role = text.slice(0, colon);
  const groups = text
    .slice(colon + 1)
    .split(',')
    .filter((tag) => tag !== '');
  return isRole(role) ? { role, groups } : undefined;
}

/** Several `--role` options merged: a role given twice covers the groups of both. */
export function mergedGrants(grants: readonly RoleGrant[]): RoleGrant[] {
  const merged = new Map<Role, string[]>();
  for (const grant of grants) {
    const groups = merged.get(grant.role) ?? [];
    for (const tag of grant.groups) if (!groups.includes(tag)) groups.push(tag);
    merged.set(grant.role, groups);
  }
  return [...merged].map(([role, groups]) => ({ role, groups }));
}
