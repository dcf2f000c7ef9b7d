/**
 * The first half of the admin gate (docs/interface.md#roles), at `onRequest`, before the body is read: who is
 * asking, and whether they may do the route's action at all. Not signed in → 401 code -1; a bearer token that
 * is no live service token → 401 code -1; signed in without admin rights or a role, or asking for an action
 * their role or scopes do not cover → 403 code 4; an admin or role holder of a group in MFA_REQUIRED_GROUPS
 * whose SESSION did not sign in with a second factor → 403 code 8 (docs/security.md#second-factors: the
 * session's `amr` decides, not whether the account has a factor now).
 */
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import { AMR } from '../../../domain/amr.js';
import { rolesOf } from '../../../domain/roles.js';
import { findServicePrincipal } from '../../../oauth/service-tokens.js';
import { EnvelopeCode } from '../../../shared/envelope.js';
import { ApiError, forbidden, secondFactorRequired } from '../../api-error.js';
import { type SignedIn, requireSignedIn } from '../../session-cookie.js';
import { type AdminAction, rolesAllowing, scopesAllow } from './permissions.js';
import type { AdminPrincipal } from './principal.js';

/** RFC 6750 §2.1: `Authorization: Bearer <b64token>`. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/;

const invalidToken = (message: string): ApiError =>
  new ApiError(401, EnvelopeCode.NotSignedIn, message, {
    // RFC 6750 §3.
    'www-authenticate': 'Bearer realm="campus-sso", error="invalid_token"',
  });

/** A service token's app (docs/interface.md#service-accounts): no cookie is looked at then. */
async function serviceFrom(ctx: AppContext, authorization: string): Promise<AdminPrincipal> {
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined) {
    throw invalidToken('the admin API takes a session cookie or Authorization: Bearer <service token>');
  }
  const service = await findServicePrincipal(ctx, token);
  if (!service) throw invalidToken('the bearer token is not a live service token');
  return { kind: 'service', clientId: service.clientId, scopes: service.scopes };
}

async function requireSecondFactorIfNeeded(ctx: AppContext, signedIn: SignedIn): Promise<void> {
  if (!ctx.secondFactors.isRequiredFor(signedIn.user)) return;
  if (signedIn.session.amr.includes(AMR.multiFactor)) return;
  throw secondFactorRequired(
    (await ctx.secondFactors.hasSecondFactor(signedIn.user.uin))
      ? 'this session signed in with the password alone: sign in again with your second factor'
      : 'add a passkey or an authenticator app on your account page first',
  );
}

/** The signed-in admin or role holder behind the session cookie. */
async function personFrom(ctx: AppContext, request: FastifyRequest): Promise<AdminPrincipal> {
  const signedIn = await requireSignedIn(ctx, request);
  const roles = signedIn.user.userGroup === 'admin' ? [] : await rolesOf(ctx, signedIn.user.uin);
  if (signedIn.user.userGroup !== 'admin' && roles.length === 0) {
    throw forbidden('only admins may use the admin API');
  }
  // The same second-factor rule for role holders as for admins: it follows their user_group.
  await requireSecondFactorIfNeeded(ctx, signedIn);
  return signedIn.user.userGroup === 'admin'
    ? { kind: 'admin', signedIn }
    : { kind: 'delegate', signedIn, roles };
}

export async function findPrincipal(ctx: AppContext, request: FastifyRequest): Promise<AdminPrincipal> {
  const authorization = request.headers.authorization;
  return authorization === undefined ? personFrom(ctx, request) : serviceFrom(ctx, authorization);
}

/** Whether the principal may do `action` to anyone at all (whom, the second half decides). */
export function mayAttempt(principal: AdminPrincipal, action: AdminAction): boolean {
  switch (principal.kind) {
    case 'admin':
      return true;
    case 'delegate':
      return (
        rolesAllowing(
          principal.roles.map((grant) => grant.role),
          action,
        ).length > 0
      );
    case 'service':
      return scopesAllow(principal.scopes, action);
  }
}
