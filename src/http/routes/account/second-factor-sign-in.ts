/**
 * Signing in with a second factor (docs/interface.md#second-factor): the password step opens a pending
 * sign-in (`beginSecondFactorSignIn`), which `POST /v1/account/login/second-factor` completes with a TOTP
 * code, a recovery code or a passkey; and passwordless sign-in with a passkey alone.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import { AMR, passkeyMethod, withSecondFactor } from '../../../domain/amr.js';
import { userTarget } from '../../../domain/audit.js';
import type { Attempt } from '../../../domain/login-throttle.js';
import {
  type AuthenticationResponseJSON,
  PasskeyError,
  type PasskeyAssertion,
} from '../../../domain/passkeys.js';
import { PENDING_SIGN_IN_TTL_SECONDS } from '../../../domain/pending-sign-ins.js';
import { isActiveUser } from '../../../domain/users.js';
import type { PendingSignInView, SignedInView } from '../../../shared/views.js';
import type { UserRecord } from '../../../storage/store.js';
import { EnvelopeCode } from '../../../shared/envelope.js';
import { ApiError, badRequest, notSignedIn, tooManyAttempts } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { clearSessionCookie, readSessionCookies, setSessionCookie } from '../../session-cookie.js';
import { AuthenticationResponseInput, CeremonyOptions } from './webauthn-schemas.js';
import { TOTP_CODE_PATTERN } from '../../../shared/totp.js';
import { Envelope } from '../../response-schemas.js';
import { SignedInViewSchema } from '../../view-schemas.js';
import { PUBLIC } from '../../openapi/security.js';

/** Ends whatever the request's cookie stands for (a session or a pending sign-in): no session fixation. */
export async function endPreviousSignIn(ctx: AppContext, request: FastifyRequest): Promise<void> {
  for (const previous of readSessionCookies(ctx, request)) {
    await ctx.sessions.end(previous);
    await ctx.pendingSignIns.endById(previous);
  }
}

/**
 * The password was right. A user with a second factor gets a pending sign-in under the session cookie and
 * the factors to choose from; answers undefined when the password alone signs the user in. `shared`
 * ("This is a shared computer") is kept for the session the second factor completes.
 */
export async function beginSecondFactorSignIn(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  user: UserRecord,
  attempt: Attempt,
  shared: boolean,
): Promise<PendingSignInView | undefined> {
  const factors = await ctx.secondFactors.factorsOf(user.uin);
  if (factors.length === 0) return undefined;
  await ctx.loginThrottle.passwordAccepted(attempt);
  await endPreviousSignIn(ctx, request);
  const id = await ctx.pendingSignIns.begin(user.uin, shared);
  // docs/interface.md#sessions-and-sign-out: on a shared computer even this cookie ends with the browser.
  setSessionCookie(ctx, reply, id, shared ? null : PENDING_SIGN_IN_TTL_SECONDS);
  request.log.info({ uin: user.uin, shared }, 'password accepted; second factor awaited');
  return { uin: user.uin, user_group: user.userGroup, second_factor: factors };
}

/** How a sign-in ends in a session. */
export interface SignInStart {
  /** How the user proved who they are (RFC 8176), recorded in the audit trail; a password when absent. */
  readonly amr?: readonly string[];
  /** "This is a shared computer" (docs/interface.md#sessions-and-sign-out). */
  readonly shared: boolean;
}

/**
 * Starts the real session (a fresh id, the previous one ended) and records the sign-in. A shared
 * computer's session has a cookie that ends with the browser (docs/interface.md#sessions-and-sign-out).
 */
export async function startSignedInSession(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  user: UserRecord,
  { amr, shared }: SignInStart,
): Promise<void> {
  await endPreviousSignIn(ctx, request);
  const { id } = await ctx.sessions.start(user.uin, {
    amr,
    shared,
    ip: request.ip,
    userAgent: request.headers['user-agent'],
  });
  setSessionCookie(ctx, reply, id, shared ? null : undefined);
  request.log.info({ uin: user.uin, amr, shared }, 'signed in');
  await ctx.store.users.recordSignIn(user.uin, ctx.clock.now());
  await ctx.audit.recordOwn(request, user.uin, 'sign_in', amr ? { detail: { amr } } : {});
}

/** {@link startSignedInSession} for a second factor or a passkey, answered as `{"uin","user_group"}`. */
async function signIn(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  user: UserRecord,
  start: SignInStart,
): Promise<SignedInView> {
  await startSignedInSession(ctx, request, reply, user, start);
  return { uin: user.uin, user_group: user.userGroup };
}

const SecondFactorBody = Type.Object(
  {
    totp: Type.Optional(Type.String({ pattern: TOTP_CODE_PATTERN })),
    recovery_code: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    passkey: Type.Optional(AuthenticationResponseInput),
  },
  { additionalProperties: false },
);

const PasskeyLoginBody = Type.Object(
  {
    response: AuthenticationResponseInput,
    // docs/interface.md#sessions-and-sign-out: "This is a shared computer", as for a password sign-in.
    shared: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const SignedInAnswers = { 200: Envelope(SignedInViewSchema, 'Signed in') };

const noPendingSignIn = (): ApiError =>
  notSignedIn('no sign-in is waiting for a second factor: sign in with your password again');

export const secondFactorSignInRoutes: RoutePlugin = async (app, { ctx }) => {
  /** The pending sign-in behind the request's cookie, or 401 code -1. */
  async function requirePending(request: FastifyRequest) {
    // Of several same-named cookies (docs/interface.md#sessions-and-sign-out), the one naming a pending sign-in.
    for (const id of readSessionCookies(ctx, request)) {
      const pending = await ctx.pendingSignIns.find(id);
      if (pending) return pending;
    }
    throw noPendingSignIn();
  }

  app.post(
    '/v1/account/login/second-factor/options',
    { schema: { response: { 200: Envelope(CeremonyOptions) } }, config: { csrf: true } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const pending = await requirePending(request);
      if ((await ctx.store.secondFactors.listPasskeys(pending.uin)).length === 0) {
        throw badRequest('this account has no passkey');
      }
      return ok(await ctx.passkeys.secondFactorOptions(pending.uin));
    },
  );

  app.post(
    '/v1/account/login/second-factor',
    { schema: { body: SecondFactorBody, response: SignedInAnswers }, config: { csrf: true } },
    async (request, reply) => {
      const { totp, recovery_code: recoveryCode, passkey } = request.body;
      const given = [totp, recoveryCode, passkey].filter((answer) => answer !== undefined).length;
      if (given !== 1) throw badRequest('send exactly one of totp, recovery_code and passkey');
      const pending = await requirePending(request);

      // Second-factor guesses are sign-in attempts: the same throttle, per account and per address.
      const attempt = await ctx.loginThrottle.begin(pending.uin, request.ip);
      if (attempt.retryAfter > 0) throw tooManyAttempts(attempt.retryAfter);

      let method: string | undefined;
      if (totp !== undefined) {
        if (await ctx.totp.verify(pending.uin, totp)) method = AMR.oneTimePassword;
      } else if (recoveryCode !== undefined) {
        if (await ctx.secondFactors.useRecoveryCode(pending.uin, recoveryCode)) method = AMR.oneTimePassword;
      } else if (passkey !== undefined) {
        const assertion = await passkeyAssertion(
          ctx,
          'second-factor',
          pending.uin,
          passkey as AuthenticationResponseJSON,
        );
        if (assertion) method = passkeyMethod(assertion.passkey);
      }

      if (method === undefined) {
        await ctx.loginThrottle.failed(attempt);
        // docs/security.md: a wrong second factor means someone knows the password; the owner and the admins see it.
        await ctx.audit.record({
          action: 'sign_in',
          outcome: 'failure',
          target: userTarget(pending.uin),
          detail: {
            second_factor:
              totp !== undefined ? 'totp' : recoveryCode !== undefined ? 'recovery_code' : 'passkey',
          },
          request,
        });
        const ended = await ctx.pendingSignIns.fail(pending);
        request.log.info({ uin: pending.uin, ended }, 'second factor refused');
        if (ended) {
          clearSessionCookie(ctx, reply);
          throw notSignedIn('too many wrong answers: sign in with your password again');
        }
        throw new ApiError(401, EnvelopeCode.InvalidRequest, 'wrong second factor');
      }
      // Exactly one request completes a pending sign-in.
      if (!(await ctx.pendingSignIns.end(pending))) throw noPendingSignIn();
      await ctx.loginThrottle.succeeded(attempt);
      const user = await ctx.store.users.find(pending.uin);
      if (!user || !isActiveUser(user, ctx.clock.now())) throw noPendingSignIn();
      // The password and a second factor: the factors the account has now are its owner's (docs/security.md#second-factors).
      await ctx.secondFactors.recordSecondFactorSignIn(user.uin);
      return ok(
        await signIn(ctx, request, reply, user, { amr: withSecondFactor(method), shared: pending.shared }),
      );
    },
  );

  // Unauthenticated, and each call stores a challenge: limited per address, and the store is bounded
  // (docs/security.md).
  app.post(
    '/v1/account/passkey-login/options',
    { schema: { response: { 200: Envelope(CeremonyOptions) }, security: PUBLIC }, config: { csrf: true } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const retryAfter = await ctx.passkeys.passwordlessOptionsRetryAfter(request.ip);
      if (retryAfter > 0) throw tooManyAttempts(retryAfter);
      return ok(await ctx.passkeys.passwordlessOptions());
    },
  );

  app.post(
    '/v1/account/passkey-login',
    {
      schema: { body: PasskeyLoginBody, response: SignedInAnswers, security: PUBLIC },
      config: { csrf: true },
    },
    async (request, reply) => {
      const assertion = await passkeyAssertion(
        ctx,
        'passwordless',
        null,
        request.body.response as AuthenticationResponseJSON,
      );
      const user = assertion && (await ctx.store.users.find(assertion.passkey.uin));
      // An expired account acts as disabled, as for a password sign-in (docs/interface.md#people-groups-and-audit).
      if (!assertion || !user || !isActiveUser(user, ctx.clock.now())) {
        request.log.info({ uin: assertion?.passkey.uin }, 'passkey sign-in refused');
        throw new ApiError(401, EnvelopeCode.InvalidRequest, 'the passkey could not be verified');
      }
      // The passkey is something the user has, unlocked by something they know or are (user verification).
      const amr = [passkeyMethod(assertion.passkey), AMR.multiFactor];
      return ok(await signIn(ctx, request, reply, user, { amr, shared: request.body.shared === true }));
    },
  );
};

/** The verified assertion, or undefined when it does not verify (the reason is logged, not answered). */
async function passkeyAssertion(
  ctx: AppContext,
  purpose: 'second-factor' | 'passwordless',
  uin: number | null,
  response: AuthenticationResponseJSON,
): Promise<PasskeyAssertion | undefined> {
  try {
    return await ctx.passkeys.authenticate(purpose, uin, response);
  } catch (error) {
    if (error instanceof PasskeyError) return undefined;
    throw error;
  }
}
