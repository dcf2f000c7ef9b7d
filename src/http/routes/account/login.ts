import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.js';
import { userTarget } from '../../../domain/audit.js';
import { lockWarning } from '../../../domain/login-throttle.js';
import { isValidUin, userView } from '../../../domain/users.js';
import { isDatabaseUnavailable } from '../../../storage/database-errors.js';
import { askingClientId, postLogoutRedirect } from '../../../oauth/end-session.js';
import { PAGE_LOGOUT_PARAMETERS } from '../../../shared/logout.js';
import type { MeView, SignedInView } from '../../../shared/views.js';
import {
  badRequest,
  directoryUnavailable,
  notSignedIn,
  tooManyAttempts,
  wrongCredentials,
} from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { PasswordInput, UinInput, optional } from '../../schemas.js';
import { beginSecondFactorSignIn, endPreviousSignIn, startSignedInSession } from './sign-in-session.js';
import { clearSessionCookie, findSignedIn, readSessionCookies } from '../../session-cookie.js';
import { rolesOf } from '../../../domain/roles.js';
import { Envelope, EnvelopeOf } from '../../response-schemas.js';
import { MeViewSchema, PendingSignInViewSchema, SignedInViewSchema } from '../../view-schemas.js';
import { OPTIONAL_SESSION, PUBLIC } from '../../openapi/security.js';

const LoginBody = Type.Object(
  {
    uin: UinInput,
    password: PasswordInput,
    // docs/interface.md#sessions-and-sign-out: "This is a shared computer".
    shared: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** `POST /v1/account/logout`: everywhere, or with the RP-initiated logout's parameters (the #/logout page). */
const LogoutBody = Type.Optional(
  Type.Object(
    {
      everywhere: Type.Optional(Type.Boolean()),
      ...optional(Type.String(), ...PAGE_LOGOUT_PARAMETERS),
    },
    { additionalProperties: false },
  ),
);

/**
 * Signed in (`must_change_password` when the password must be changed first), or, with a second factor, a
 * pending sign-in that names the factors (docs/interface.md#second-factor).
 */
const LoginAnswers = {
  200: Envelope(Type.Union([SignedInViewSchema, PendingSignInViewSchema]), 'Signed in, or a pending sign-in'),
};

/** The Fastify instance the account routes are added to. */
type AccountApp = Parameters<RoutePlugin>[0];

/** Sign in, sign out, who am I (docs/interface.md#browser-session-api). */
export const loginRoutes: RoutePlugin = async (app, { ctx }) => {
  signInRoute(app, ctx);
  signOutRoute(app, ctx);
  meRoute(app, ctx);
};

/** `POST /v1/account/login`: a password checked under the throttle, then a session or a pending sign-in. */
function signInRoute(app: AccountApp, ctx: AppContext): void {
  app.post(
    '/v1/account/login',
    { schema: { body: LoginBody, response: LoginAnswers, security: PUBLIC }, config: { csrf: true } },
    async (request, reply) => {
      const uin = Number(request.body.uin);
      if (!isValidUin(uin)) throw badRequest('uin must be a positive integer up to 2^53-1');

      // Counted before the password is checked, so simultaneous guesses cannot outrun the limit.
      const attempt = await ctx.loginThrottle.begin(uin, request.ip);
      if (attempt.retryAfter > 0) {
        // One event per lock, not per request (docs/security.md): a flood cannot fill the audit trail.
        if (await ctx.loginThrottle.firstRefusal(attempt)) {
          await ctx.audit.record({ action: 'sign_in', outcome: 'locked', target: userTarget(uin), request });
        }
        throw tooManyAttempts(attempt.retryAfter);
      }

      try {
        // A wrong uin and a wrong password answer the same, in the same time (UserService.authenticate). Whose
        // word decides is the user's source: the hash here or the school's directory (PasswordVerifier).
        const check = await ctx.passwords.signIn(uin, request.body.password);
        if (check.outcome === 'directory-unavailable') {
          // docs/interface.md#the-schools-directory: not checked, so not counted; only directory users are refused.
          await ctx.loginThrottle.notChecked(attempt);
          await ctx.audit.record({
            action: 'sign_in',
            outcome: 'failure',
            target: userTarget(uin),
            detail: { reason: 'directory_unavailable' },
            request,
          });
          throw directoryUnavailable();
        }
        const user = check.outcome === 'accepted' ? check.user : undefined;
        const skippedGroups = check.outcome === 'accepted' ? check.skippedGroups : undefined;
        // docs/interface.md#the-schools-directory: a directory group that is no group tag is skipped and reported.
        if (skippedGroups) {
          request.log.warn(
            { uin, skipped_groups: skippedGroups },
            'groups that are not group tags were skipped',
          );
        }
        if (check.outcome === 'accepted' && check.created) {
          // Just-in-time: the directory knew this uin and its password; the account now exists here too.
          await ctx.audit.record({
            action: 'user_created',
            target: userTarget(uin),
            detail: {
              source: 'ldap',
              via: 'sign_in',
              groups: check.user.groups,
              ...(skippedGroups && { skipped_groups: skippedGroups }),
            },
            request,
          });
        }
        if (!user) {
          await ctx.loginThrottle.failed(attempt);
          request.log.info({ uin }, 'sign-in refused');
          // Nobody is known to have acted: the uin is only what was typed.
          await ctx.audit.record({ action: 'sign_in', outcome: 'failure', target: userTarget(uin), request });
          // docs/interface.md#browser-session-api: the form warns before the failure that locks.
          throw wrongCredentials(lockWarning(attempt));
        }
        // docs/interface.md#sessions-and-sign-out: "This is a shared computer", kept through a second factor.
        const shared = request.body.shared === true;
        // docs/interface.md#second-factor: with a second factor, the password only opens a pending sign-in.
        const pending = await beginSecondFactorSignIn(ctx, request, reply, user, attempt, shared);
        if (pending) return ok(pending);
        await ctx.loginThrottle.succeeded(attempt);

        // A fresh session id at every sign-in (no session fixation); the previous one, if any, ends.
        await startSignedInSession(ctx, request, reply, user, { shared });
        const signedIn: SignedInView = {
          uin: user.uin,
          user_group: user.userGroup,
          // docs/security.md: signed in, but every other call answers code 9 until the password is changed.
          ...(user.mustChangePassword && { must_change_password: true as const }),
        };
        return ok(signedIn);
      } catch (error) {
        // docs/security.md: an attempt that ends in a database error is never a failure.
        if (isDatabaseUnavailable(error)) await ctx.loginThrottle.interrupted(attempt);
        throw error;
      }
    },
  );
}

/** `POST /v1/account/logout`: this browser, or everywhere; back to the app for RP-Initiated Logout. */
function signOutRoute(app: AccountApp, ctx: AppContext): void {
  app.post(
    '/v1/account/logout',
    {
      schema: {
        body: LogoutBody,
        response: { 200: EnvelopeOf({ redirect_to: Type.Optional(Type.String()) }, 'Signed out') },
        security: OPTIONAL_SESSION,
      },
      config: { csrf: true },
      // No body at all is an empty one (the call predates its parameters).
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      // Who is signing out (any same-named cookie that names a live session), even one whose password must
      // be changed first: signing out is always allowed.
      let signedIn: Awaited<ReturnType<typeof ctx.sessions.resolve>>;
      for (const id of readSessionCookies(ctx, request)) signedIn ??= await ctx.sessions.resolve(id);
      if (body.everywhere === true && signedIn) {
        const ended = await ctx.sessions.endAll(signedIn.user.uin);
        request.log.info({ uin: signedIn.user.uin, sessions: ended }, 'signed out everywhere');
      }
      await endPreviousSignIn(ctx, request);
      clearSessionCookie(ctx, reply);
      if (signedIn) {
        const uin = signedIn.user.uin;
        await ctx.audit.recordOwn(request, uin, 'sign_out', {
          detail: { everywhere: body.everywhere === true },
        });
      }
      // The #/logout page of RP-Initiated Logout 1.0: back to the app only at a URI registered for it.
      const redirectTo = await postLogoutRedirect(ctx, askingClientId(body, undefined), body);
      return ok(redirectTo === undefined ? {} : { redirect_to: redirectTo });
    },
  );
}

/** `GET /v1/account/me`: who is signed in. */
function meRoute(app: AccountApp, ctx: AppContext): void {
  app.get(
    '/v1/account/me',
    { schema: { response: { 200: Envelope(MeViewSchema) } } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const signedIn = await findSignedIn(ctx, request, { pendingPasswordChange: 'allowed' });
      if (!signedIn) {
        // A stale cookie is cleared so the browser stops sending it.
        if (readSessionCookies(ctx, request).length > 0) clearSessionCookie(ctx, reply);
        throw notSignedIn();
      }
      const roles = await rolesOf(ctx, signedIn.user.uin);
      const me: MeView = {
        ...userView(signedIn.user),
        ...(signedIn.user.mustChangePassword && { must_change_password: true as const }),
        ...(signedIn.user.source === 'ldap' && { source: 'ldap' as const }),
        ...(signedIn.user.name && { name: signedIn.user.name }),
        ...(roles.length > 0 && { roles }),
      };
      return ok(me);
    },
  );
}
