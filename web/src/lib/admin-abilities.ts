/**
 * What `#/admin` shows to whom (docs/interface.md#roles): an admin everything; a
 * helpdesk member Users, with the actions that get a person back in, and Audit (their people's events); an
 * auditor Users and Audit, read only. The server enforces each of these on its own; the page only leaves out what would be refused.
 */
import type { AdminUserView, MeView, RoleGrant } from '../api';

export type AdminPanel = 'apps' | 'users' | 'audit';

export interface AdminAbilities {
  readonly panels: readonly AdminPanel[];
  /** Add users and import CSV. */
  readonly addUsers: boolean;
  /** Name, email, group tags, expiry, `user_group`, disable, roles, and the bulk changes of them. */
  readonly manageUsers: boolean;
  /** Unlock, reset codes and sign-in cards, set a password, sign out everywhere, remove second factors. */
  readonly recoverUsers: boolean;
  /**
   * Whether those rescue actions reach this user: anyone for an admin; for a helpdesk member their people (a
   * helpdesk group of theirs, no role, no admin), not everyone else an auditor role lets them read.
   */
  readonly mayRecover: (user: Pick<AdminUserView, 'groups' | 'roles' | 'user_group'>) => boolean;
  /** The groups a helpdesk member or auditor covers (empty for an admin: everyone). */
  readonly groups: readonly string[];
}

/** The roles of the signed-in person; an answer without the field means none. */
export function rolesOf(me: MeView): readonly RoleGrant[] {
  const roles = (me as MeView & { roles?: unknown }).roles;
  return Array.isArray(roles) ? (roles as RoleGrant[]) : [];
}

export function abilitiesOf(me: MeView): AdminAbilities | null {
  if (me.user_group === 'admin') {
    return {
      panels: ['apps', 'users', 'audit'],
      addUsers: true,
      manageUsers: true,
      recoverUsers: true,
      mayRecover: () => true,
      groups: [],
    };
  }
  const roles = rolesOf(me);
  const helpdesk = roles.filter((grant) => grant.role === 'helpdesk');
  const auditor = roles.filter((grant) => grant.role === 'auditor');
  if (helpdesk.length === 0 && auditor.length === 0) return null;
  return {
    // docs/interface.md#roles: both roles read the audit events of the users they reach.
    panels: ['users', 'audit'],
    addUsers: false,
    manageUsers: false,
    recoverUsers: helpdesk.length > 0,
    mayRecover: (user) => {
      const theirs = new Set(helpdesk.flatMap((grant) => grant.groups));
      return (
        user.user_group !== 'admin' && user.roles.length === 0 && user.groups.some((tag) => theirs.has(tag))
      );
    },
    groups: [...new Set(roles.flatMap((grant) => grant.groups))],
  };
}
