/**
 * The admin API's entries in the audit trail (docs/interface.md#people-groups-and-audit): the actor is the
 * person making the call, or the app whose service token made it (`actor_client_id`).
 */
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import { userTarget } from '../../../domain/audit.js';
import type { AuditInput } from '../../../domain/audit.js';
import type { AuditAction } from '../../../shared/people.js';
import { actorOf } from './principal.js';

/** Records this request's action, with its actor. */
export function auditAdminAction(
  ctx: AppContext,
  request: FastifyRequest,
  event: Omit<AuditInput, 'actorUin' | 'actorClientId' | 'request'>,
): Promise<void> {
  return ctx.audit.record({ ...event, ...actorOf(request), request });
}

/** Records this request's action on one user. */
export function auditAdminOnUser(
  ctx: AppContext,
  request: FastifyRequest,
  action: AuditAction,
  uin: number,
  detail?: Readonly<Record<string, unknown>>,
): Promise<void> {
  return auditAdminAction(ctx, request, { action, target: userTarget(uin), ...(detail && { detail }) });
}
