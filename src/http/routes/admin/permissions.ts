/**
 * Who may do what in the admin API (docs/interface.md#roles): every admin route declares the permission it
 * needs in its options (`config: { permission }`), and the gate (./gate.ts) enforces it before the handler.
 * These tables are the whole policy; the gate only applies them.
 */
import type { Role } from '../../../shared/roles.js';

/** What a route does. */
export type AdminAction =
  /** Apps and their secrets: admins only. */
  | 'apps.read'
  | 'apps.manage'
  /** Search and view users. */
  | 'users.read'
  /** Create users (one, or a CSV import). */
  | 'users.create'
  /** Change one user (`PATCH`): which fields, the gate checks per principal (bodyRefusal). */
  | 'users.change'
  /** Get a person back in: unlock, reset code, sign out everywhere, remove second factors. */
  | 'users.help'
  /** One action on many users. */
  | 'users.bulk'
  /** Read the audit trail. */
  | 'audit.read';

/**
 * On whom: `none` (apps), `path-user` (the `:uin` of the path), `body-users` (the body's `uins`),
 * `new-users` (the users a body creates), `scoped-list` (a list the handler cuts to the caller's scope).
 */
export type AdminTarget = 'none' | 'path-user' | 'body-users' | 'new-users' | 'scoped-list';

export interface AdminPermission {
  readonly action: AdminAction;
  readonly target: AdminTarget;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An admin route's permission (required: a route without one fails to register). */
    permission?: AdminPermission;
  }
}

/** The admin-API scopes a service token may carry (docs/interface.md#service-accounts). */
export const ADMIN_SCOPES = ['admin:users:read', 'admin:users:write', 'admin:audit:read'] as const;
export type AdminScope = (typeof ADMIN_SCOPES)[number];

/** What each role may do, for the users of its groups only. */
export const ROLE_ACTIONS: Readonly<Record<Role, readonly AdminAction[]>> = {
  helpdesk: ['users.read', 'users.change', 'users.help', 'audit.read'],
  auditor: ['users.read', 'audit.read'],
};

/** What each scope lets a service token do (never apps or keys; never on an admin or role holder). */
export const SCOPE_ACTIONS: Readonly<Record<AdminScope, readonly AdminAction[]>> = {
  'admin:users:read': ['users.read'],
  'admin:users:write': ['users.create', 'users.change', 'users.help', 'users.bulk'],
  'admin:audit:read': ['audit.read'],
};

/** The fields of `PATCH /v1/admin/users/:uin` a helpdesk member may send: a new password (forced change). */
export const HELPDESK_FIELDS: readonly string[] = ['password'];
/** Fields only an admin sets: nobody else raises anyone's rights. */
export const ADMIN_ONLY_FIELDS: readonly string[] = ['user_group', 'roles'];
/** Bulk actions only an admin makes. */
export const ADMIN_ONLY_BULK_ACTIONS: readonly string[] = ['set_group'];

/** The roles among `roles` that allow `action`. */
export function rolesAllowing(roles: readonly Role[], action: AdminAction): Role[] {
  return roles.filter((role) => ROLE_ACTIONS[role].includes(action));
}

/** Whether one of the token's scopes allows `action`. */
export function scopesAllow(scopes: readonly string[], action: AdminAction): boolean {
  return ADMIN_SCOPES.some((scope) => scopes.includes(scope) && SCOPE_ACTIONS[scope].includes(action));
}
