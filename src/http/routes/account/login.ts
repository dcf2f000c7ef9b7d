import { Type } from '@sinclair/typebox';
import { isValidUin, userView } from '../../../domain/users.js';
import { askingClientId, postLogoutRedirect } from '../../../oauth/end-session.js';
import type { SignedInView } from '../../../shared/views.js';
import { badRequest, notSignedIn, tooManyAttempts, wrongCredentials } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { PasswordInput, UinInput } from '../../schemas.js';
import {
  clearSessionCookie,
  findSignedIn,
  readSessionCookie,
  setSessionCookie,
} from '../../session-cookie.js';

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
      client_id: Type.Optional(Type.String()),
      post_logout_redirect_uri: Type.Optional(Type.String()),
      state: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  ),
);

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
      if (attempt.retryAfter > 0) throw tooManyAttempts(attempt.retryAfter);

      // A wrong uin and a wrong password answer the same, in the same time (UserService.authenticate).
      const user = await ctx.users.authenticate(uin, request.body.password);
      if (!user) {
        await ctx.loginThrottle.failed(attempt);
        request.log.info({ uin }, 'sign-in refused');
        throw wrongCredentials();
      }
      await ctx.loginThrottle.succeeded(attempt);

      // A fresh session id at every sign-in (no session fixation); the previous one, if any, ends.
      const previous = readSessionCookie(request);
      if (previous) await ctx.sessions.end(previous);
      const shared = request.body.shared === true;
      const { id } = await ctx.sessions.start(user.uin, {
        shared,
        ip: request.ip,
        userAgent: request.headers['user-agent'],
      });
      setSessionCookie(ctx, reply, id, { shared });
      request.log.info({ uin, shared }, 'signed in');
      const signedIn: SignedInView = { uin: user.uin, user_group: user.userGroup };
      return ok(signedIn);
    },
  );

  app.post(
    '/v1/account/logout',
    {
      schema: { body: LogoutBody },
      config: { csrf: true },
      // No body at all is an empty one (the call predates its parameters).
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      if (body.everywhere === true) {
        const signedIn = await findSignedIn(ctx, request);
        if (signedIn) {
          const ended = await ctx.sessions.endAll(signedIn.user.uin);
          request.log.info({ uin: signedIn.user.uin, sessions: ended }, 'signed out everywhere');
        }
      } else {
        const id = readSessionCookie(request);
        if (id) await ctx.sessions.end(id);
      }
      clearSessionCookie(ctx, reply);
      // The #/logout page of RP-Initiated Logout 1.0: back to the app only at a URI registered for it.
      const redirectTo = await postLogoutRedirect(ctx, askingClientId(body, undefined), body);
      return ok(redirectTo === undefined ? {} : { redirect_to: redirectTo });
    },
  );

  app.get('/v1/account/me', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const signedIn = await findSignedIn(ctx, request);
    if (!signedIn) {
      // A stale cookie is cleared so the browser stops sending it.
      if (readSessionCookie(request)) clearSessionCookie(ctx, reply);
      throw notSignedIn();
    }
    return ok(userView(signedIn.user));
  });
};
