/**
 * The second half of the admin gate (docs/interface.md#roles), at `preHandler`, once the body is parsed: on
 * whom. An admin reaches everyone. A helpdesk member reaches only the people of their groups (not admins,
 * holding no role: so never themselves), and sets nothing but a password; an auditor reads everyone carrying
 * one of their groups; a service token never acts on an
 * admin or a role holder, never sets `user_group` or roles, never creates an admin. Any target out of reach
 * refuses the whole request (403 code 4) before anything is changed.
 */
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import { findUsers } from '../../../domain/admin-reads.js';
import { isInScope, isPrivileged, rolesOfMany, scopeOf } from '../../../domain/roles.js';
import type { UserScope } from '../../../storage/store.js';
import { forbidden } from '../../api-error.js';
import {
  ADMIN_ONLY_BULK_ACTIONS,
  ADMIN_ONLY_FIELDS,
  type AdminAction,
  type AdminPermission,
  HELPDESK_FIELDS,
  rolesAllowing,
} from './permissions.js';
import { type AdminPrincipal, limitToScope, principalOf } from './principal.js';

type Delegate = Extract<AdminPrincipal, { kind: 'delegate' }>;
type Service = Extract<AdminPrincipal, { kind: 'service' }>;

const record = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

const isAdminGroup = (value: unknown): boolean =>
  typeof value === 'string' && value.trim().toLowerCase() === 'admin';

/** Why this body asks for more than a role holder or a service token may do, or undefined. */
function bodyRefusal(principal: Delegate | Service, action: AdminAction, body: unknown): string | undefined {
  const fields = record(body);
  if (action === 'users.change') {
    if (Object.keys(fields).some((field) => ADMIN_ONLY_FIELDS.includes(field))) {
      return 'only an admin sets user_group or roles';
    }
    if (principal.kind === 'delegate' && Object.keys(fields).some((f) => !HELPDESK_FIELDS.includes(f))) {
      return 'a helpdesk member may only set a new password';
    }
  }
  if (action === 'users.bulk' && ADMIN_ONLY_BULK_ACTIONS.includes(String(fields.action))) {
    return 'only an admin changes user_group';
  }
  if (action === 'users.create') {
    const rows = Array.isArray(fields.rows) ? fields.rows.map(record) : [fields];
    if (rows.some((row) => isAdminGroup(row.user_group))) return 'only an admin creates admins';
  }
  return undefined;
}

/** The people a role holder reaches with `action`. */
function delegateScope(principal: Delegate, action: AdminAction): UserScope {
  const roles = rolesAllowing(
    principal.roles.map((grant) => grant.role),
    action,
  );
  // mayAttempt let the request in, so one of the roles allows the action and has groups.
  return scopeOf(principal.roles, roles) ?? { anyTags: [] };
}

const outOfReach = (uin: number): Error => forbidden(`user ${uin} is not one of the people your role covers`);

/** Refuses unless every existing one of `uins` is within the principal's reach for `action`. */
async function checkUsers(
  ctx: AppContext,
  principal: Delegate | Service,
  action: AdminAction,
  uins: readonly number[],
): Promise<void> {
  const users = await findUsers(ctx, uins);
  const roles = await rolesOfMany(
    ctx,
    users.map((user) => user.uin),
  );
  if (principal.kind === 'delegate') {
    const scope = delegateScope(principal, action);
    const found = new Set(users.map((user) => user.uin));
    // A uin nobody has is out of reach too: a role holder learns nothing about who exists elsewhere.
    const missing = uins.find((uin) => !found.has(uin));
    if (missing !== undefined) throw outOfReach(missing);
    const outside = users.find((user) => !isInScope(user, roles.get(user.uin) ?? [], scope));
    if (outside) throw outOfReach(outside.uin);
    return;
  }
  // Reading is not acting: a token with a read scope reads everyone.
  if (action === 'users.read' || action === 'audit.read') return;
  const privileged = users.find((user) => isPrivileged(user, roles.get(user.uin) ?? []));
  if (privileged)
    throw forbidden(`a service token never acts on an admin or a role holder (user ${privileged.uin})`);
}

/** The uin of the path, or of the audit filter; undefined when the request names none. */
function namedUin(request: FastifyRequest): number | undefined {
  const raw = record(request.params).uin ?? record(request.query).uin;
  if (typeof raw !== 'string' || raw === '') return undefined;
  const uin = Number(raw);
  // Not a uin: the handler answers 400.
  return Number.isSafeInteger(uin) && uin > 0 ? uin : undefined;
}

async function checkTarget(
  ctx: AppContext,
  request: FastifyRequest,
  principal: Delegate | Service,
  { action, target }: AdminPermission,
): Promise<void> {
  const refusal = bodyRefusal(principal, action, request.body);
  if (refusal) throw forbidden(refusal);
  if (target === 'scoped-list' && principal.kind === 'delegate') {
    limitToScope(request, delegateScope(principal, action));
  }
  if (target === 'path-user' || target === 'scoped-list') {
    const uin = namedUin(request);
    if (uin !== undefined) await checkUsers(ctx, principal, action, [uin]);
  }
  if (target === 'body-users') {
    const uins = record(request.body).uins;
    if (Array.isArray(uins))
      await checkUsers(
        ctx,
        principal,
        action,
        uins.filter((u) => typeof u === 'number'),
      );
  }
}

/** The `preHandler` hook: runs the route's declared permission against its targets. */
export function authorizeTarget(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const permission = request.routeOptions.config.permission;
    const principal = principalOf(request);
    if (!permission) throw new Error('an admin route without a permission was served');
    if (principal.kind === 'admin') return;
    await checkTarget(ctx, request, principal, permission);
  };
}
