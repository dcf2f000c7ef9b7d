import { Type } from '@sinclair/typebox';
import { userTarget } from '../../../domain/audit.js';
import { isValidUin, userView } from '../../../domain/users.js';
import type { MeView, SignedInView } from '../../../shared/views.js';
import { badRequest, notSignedIn, tooManyAttempts, wrongCredentials } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { PasswordInput, UinInput } from '../../schemas.js';
import { beginSecondFactorSignIn, endPreviousSignIn } from './second-factor-sign-in.js';
import {
  clearSessionCookie,
  findSignedIn,
  readSessionCookies,
  setSessionCookie,
} from '../../session-cookie.js';

const LoginBody = Type.Object({ uin: UinInput, password: PasswordInput }, { additionalProperties: false });

/** Sign in, sign out, who am I (docs/interface.md#browser-session-api). */
export const loginRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/account/login',
    { schema: { body: LoginBody }, config: { csrf: true } },
    async (request, reply) => {
      const uin = Number(request.body.uin);
      if (!isValidUin(uin)) throw badRequest('uin must be a positive integer up to 2^53-1');

      // Counted before the password is checked, so simultaneous guesses cannot outrun the limit.
      const attempt = await ctx.loginThrottle.begin(uin, request.ip);
      if (attempt.retryAfter > 0) {
        await ctx.audit.record({ action: 'sign_in', outcome: 'locked', target: userTarget(uin), request });
        throw tooManyAttempts(attempt.retryAfter);
      }

      // A wrong uin and a wrong password answer the same, in the same time (UserService.authenticate).
      const user = await ctx.users.authenticate(uin, request.body.password);
      if (!user) {
        await ctx.loginThrottle.failed(attempt);
        request.log.info({ uin }, 'sign-in refused');
        // Nobody is known to have acted: the uin is only what was typed.
        await ctx.audit.record({ action: 'sign_in', outcome: 'failure', target: userTarget(uin), request });
        throw wrongCredentials();
      }
      // docs/interface.md#second-factor: with a second factor, the password only opens a pending sign-in.
      const pending = await beginSecondFactorSignIn(ctx, request, reply, user, attempt);
      if (pending) return ok(pending);
      await ctx.loginThrottle.succeeded(attempt);

      // A fresh session id at every sign-in (no session fixation); the previous one, if any, ends.
      await endPreviousSignIn(ctx, request);
      const { id } = await ctx.sessions.start(user.uin);
      setSessionCookie(ctx, reply, id);
      request.log.info({ uin }, 'signed in');
      await ctx.store.users.recordSignIn(user.uin, ctx.clock.now());
      await ctx.audit.record({ action: 'sign_in', actorUin: uin, target: userTarget(uin), request });
      const signedIn: SignedInView = {
        uin: user.uin,
        user_group: user.userGroup,
        // docs/security.md: signed in, but every other call answers code 9 until the password is changed.
        ...(user.mustChangePassword && { must_change_password: true as const }),
      };
      return ok(signedIn);
    },
  );

  app.post('/v1/account/logout', { config: { csrf: true } }, async (request, reply) => {
    // Who is signing out, for the audit trail (any same-named cookie that names a live session).
    let signedIn: Awaited<ReturnType<typeof ctx.sessions.resolve>>;
    for (const id of readSessionCookies(ctx, request)) signedIn ??= await ctx.sessions.resolve(id);
    await endPreviousSignIn(ctx, request);
    clearSessionCookie(ctx, reply);
    if (signedIn) {
      const uin = signedIn.user.uin;
      await ctx.audit.record({ action: 'sign_out', actorUin: uin, target: userTarget(uin), request });
    }
    return ok({});
  });

  app.get('/v1/account/me', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const signedIn = await findSignedIn(ctx, request, { pendingPasswordChange: 'allowed' });
    if (!signedIn) {
      // A stale cookie is cleared so the browser stops sending it.
      if (readSessionCookies(ctx, request).length > 0) clearSessionCookie(ctx, reply);
      throw notSignedIn();
    }
    const me: MeView = {
      ...userView(signedIn.user),
      ...(signedIn.user.mustChangePassword && { must_change_password: true as const }),
    };
    return ok(me);
  });
};
