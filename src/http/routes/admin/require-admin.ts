import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import { AMR } from '../../../domain/amr.js';
import { userTarget } from '../../../domain/audit.js';
import type { AuditAction } from '../../../shared/people.js';
import { forbidden, secondFactorRequired } from '../../api-error.js';
import { type SignedIn, requireSignedIn } from '../../session-cookie.js';

/** The admin behind each admin request, set by the guard below before any handler runs. */
const signedInAdmins = new WeakMap<FastifyRequest, SignedIn>();

/**
 * The admin API's gate (docs/interface.md#admin-api): not signed in → 401 code -1; signed in but not an
 * admin → 403 code 4; an admin of a group in MFA_REQUIRED_GROUPS whose SESSION did not sign in with a second
 * factor → 403 code 8 (docs/interface.md#second-factor). The session's `amr` decides, not whether the account
 * has a factor now: a password-only session stays refused after a factor is enrolled elsewhere
 * (docs/security.md#second-factors).
 * It runs at `onRequest`, before the body is read or validated, so nobody else learns anything from the
 * admin routes' validation messages.
 */
export function requireAdmin(ctx: AppContext): onRequestAsyncHookHandler {
  return async (request) => {
    const signedIn = await requireSignedIn(ctx, request);
    if (signedIn.user.userGroup !== 'admin') throw forbidden('only admins may use the admin API');
    if (ctx.secondFactors.isRequiredFor(signedIn.user) && !signedIn.session.amr.includes(AMR.multiFactor)) {
      throw secondFactorRequired(
        (await ctx.secondFactors.hasSecondFactor(signedIn.user.uin))
          ? 'this session signed in with the password alone: sign in again with your second factor'
          : 'add a passkey or an authenticator app on your account page first',
      );
    }
    signedInAdmins.set(request, signedIn);
  };
}

/** The signed-in admin making this request, with their session (only valid inside the admin plugin). */
export function currentAdminSession(request: FastifyRequest): SignedIn {
  const signedIn = signedInAdmins.get(request);
  if (!signedIn) throw new Error('currentAdmin() called outside the admin plugin');
  return signedIn;
}

/** The signed-in admin making this request (only valid inside the admin plugin). */
export function currentAdmin(request: FastifyRequest): SignedIn['user'] {
  return currentAdminSession(request).user;
}

/** Records the signed-in admin's action on one user in the audit trail (docs/interface.md#people-groups-and-audit). */
export function auditAdminOnUser(
  ctx: AppContext,
  request: FastifyRequest,
  action: AuditAction,
  uin: number,
  detail?: Readonly<Record<string, unknown>>,
): Promise<void> {
  return ctx.audit.record({
    action,
    actorUin: currentAdmin(request).uin,
    target: userTarget(uin),
    ...(detail && { detail }),
    request,
  });
}
