/**
 * Who is making an admin request (docs/interface.md#roles), as the gate (./gate.ts) found it before the
 * handler: an admin, a role holder (helpdesk, auditor) or an app with a service token. Handlers read it here
 * for the audit trail and for the scope of their lists.
 */
import type { FastifyRequest } from 'fastify';
import type { RoleGrant } from '../../../shared/roles.js';
import type { SessionRecord, UserScope } from '../../../storage/store.js';
import type { SignedIn } from '../../session-cookie.js';

export type AdminPrincipal =
  | { readonly kind: 'admin'; readonly signedIn: SignedIn }
  | { readonly kind: 'delegate'; readonly signedIn: SignedIn; readonly roles: readonly RoleGrant[] }
  | { readonly kind: 'service'; readonly clientId: string; readonly scopes: readonly string[] };

interface Admitted {
  readonly principal: AdminPrincipal;
  /** The users a role holder's list shows; undefined: everyone. */
  scope?: UserScope;
}

const admitted = new WeakMap<FastifyRequest, Admitted>();

export function admit(request: FastifyRequest, principal: AdminPrincipal): void {
  admitted.set(request, { principal });
}

function found(request: FastifyRequest): Admitted {
  const entry = admitted.get(request);
  if (!entry) throw new Error('the admin principal was asked for outside the admin plugin');
  return entry;
}

export function principalOf(request: FastifyRequest): AdminPrincipal {
  return found(request).principal;
}

export function limitToScope(request: FastifyRequest, scope: UserScope): void {
  found(request).scope = scope;
}

/** The users this request's lists may show: undefined for everyone (an admin, a service token). */
export function listScopeOf(request: FastifyRequest): UserScope | undefined {
  return found(request).scope;
}

/** Who acted, as the audit trail records it: a person's uin, or the app of a service token. */
export function actorOf(request: FastifyRequest): { actorUin: number | null; actorClientId: string | null } {
  const principal = principalOf(request);
  return principal.kind === 'service'
    ? { actorUin: null, actorClientId: principal.clientId }
    : { actorUin: principal.signedIn.user.uin, actorClientId: null };
}

/**
 * The session making the change, kept when a password reset ends the user's others (UserService.changeAsAdmin);
 * none for a service token.
 */
export function actingSessionOf(request: FastifyRequest): Pick<SessionRecord, 'uin' | 'idHash'> | null {
  const principal = principalOf(request);
  return principal.kind === 'service' ? null : principal.signedIn.session;
}
