/**
 * Signing in with a second factor (docs/interface.md#second-factor): the password step opens a pending
 * sign-in (`beginSecondFactorSignIn`, ./sign-in-session.ts), which `POST /v1/account/login/second-factor`
 * completes with a TOTP code, a recovery code or a passkey (src/domain/sign-in.ts decides).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import type { AuthenticationResponseJSON } from '../../../domain/passkeys.js';
import { type SecondFactorAnswer, completeSecondFactor } from '../../../domain/sign-in.js';
import type { PendingSignInRecord } from '../../../storage/store.js';
import { EnvelopeCode } from '../../../shared/envelope.js';
import { ApiError, badRequest, notSignedIn, tooManyAttempts } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { clearSessionCookie, readSessionCookies } from '../../session-cookie.js';
import { AuthenticationResponseInput, CeremonyOptions } from './webauthn-schemas.js';
import { Envelope } from '../../response-schemas.js';
import { SignedInViewSchema } from '../../view-schemas.js';
import { TOTP_CODE_PATTERN } from '../../../shared/totp.js';
import { signIn } from './sign-in-session.js';

const SecondFactorBody = Type.Object(
  {
    totp: Type.Optional(Type.String({ pattern: TOTP_CODE_PATTERN })),
    recovery_code: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    passkey: Type.Optional(AuthenticationResponseInput),
  },
  { additionalProperties: false },
);

const noPendingSignIn = (): ApiError =>
  notSignedIn('no sign-in is waiting for a second factor: sign in with your password again');

/** The pending sign-in behind the request's cookie, or 401 code -1. */
async function requirePending(ctx: AppContext, request: FastifyRequest): Promise<PendingSignInRecord> {
  // Of several same-named cookies (docs/interface.md#sessions-and-sign-out), the one naming a pending sign-in.
  for (const id of readSessionCookies(ctx, request)) {
    const pending = await ctx.pendingSignIns.find(id);
    if (pending) return pending;
  }
  throw noPendingSignIn();
}

/** The one answer the body carries, or 400 when it carries none or several. */
function answerOf(body: {
  totp?: string | undefined;
  recovery_code?: string | undefined;
  passkey?: unknown;
}): SecondFactorAnswer {
  const { totp, recovery_code: recoveryCode, passkey } = body;
  const given = [totp, recoveryCode, passkey].filter((answer) => answer !== undefined).length;
  if (given !== 1) throw badRequest('send exactly one of totp, recovery_code and passkey');
  if (totp !== undefined) return { totp };
  if (recoveryCode !== undefined) return { recoveryCode };
  return { passkey: passkey as AuthenticationResponseJSON };
}

export const secondFactorSignInRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/account/login/second-factor/options',
    { schema: { response: { 200: Envelope(CeremonyOptions) } }, config: { csrf: true } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const pending = await requirePending(ctx, request);
      if ((await ctx.passkeys.list(pending.uin)).length === 0) {
        throw badRequest('this account has no passkey');
      }
      return ok(await ctx.passkeys.secondFactorOptions(pending.uin));
    },
  );

  app.post(
    '/v1/account/login/second-factor',
    {
      schema: { body: SecondFactorBody, response: { 200: Envelope(SignedInViewSchema, 'Signed in') } },
      config: { csrf: true },
    },
    async (request, reply) => {
      const answer = answerOf(request.body);
      const pending = await requirePending(ctx, request);
      const result = await completeSecondFactor(ctx, request, pending, answer);
      switch (result.outcome) {
        case 'throttled':
          throw tooManyAttempts(result.retryAfter);
        case 'refused':
          request.log.info({ uin: pending.uin, ended: result.ended }, 'second factor refused');
          if (result.ended) {
            clearSessionCookie(ctx, reply);
            throw notSignedIn('too many wrong answers: sign in with your password again');
          }
          throw new ApiError(401, EnvelopeCode.InvalidRequest, 'wrong second factor');
        case 'gone':
          throw noPendingSignIn();
        case 'accepted':
          return ok(
            await signIn(ctx, request, reply, result.user, { amr: result.amr, shared: pending.shared }),
          );
      }
    },
  );
};
