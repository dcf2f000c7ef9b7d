/**
 * The sign-in use case's cookies (the use case itself is src/domain/sign-in.ts): the previous sign-in behind
 * the request's cookie ends, a pending sign-in or a session takes its place under the session cookie.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import type { Attempt } from '../../../domain/login-throttle.js';
import { PENDING_SIGN_IN_TTL_SECONDS } from '../../../domain/pending-sign-ins.js';
import { type SignInStart, beginSecondFactor, endSignIns, startSession } from '../../../domain/sign-in.js';
import type { PendingSignInView, SignedInView } from '../../../shared/views.js';
import type { UserRecord } from '../../../storage/store.js';
import { readSessionCookies, setSessionCookie } from '../../session-cookie.js';

export type { SignInStart };

/** Ends whatever the request's cookie stands for (a session or a pending sign-in): no session fixation. */
export async function endPreviousSignIn(ctx: AppContext, request: FastifyRequest): Promise<void> {
  await endSignIns(ctx, readSessionCookies(ctx, request));
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
  const pending = await beginSecondFactor(ctx, user, attempt, shared, readSessionCookies(ctx, request));
  if (!pending) return undefined;
  // docs/interface.md#sessions-and-sign-out: on a shared computer even this cookie ends with the browser.
  setSessionCookie(ctx, reply, pending.id, shared ? null : PENDING_SIGN_IN_TTL_SECONDS);
  request.log.info({ uin: user.uin, shared }, 'password accepted; second factor awaited');
  return { uin: user.uin, user_group: user.userGroup, second_factor: pending.factors };
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
  start: SignInStart,
): Promise<void> {
  const id = await startSession(ctx, request, user, start, readSessionCookies(ctx, request));
  setSessionCookie(ctx, reply, id, start.shared ? null : undefined);
  request.log.info({ uin: user.uin, amr: start.amr, shared: start.shared }, 'signed in');
}

/** {@link startSignedInSession} for a second factor or a passkey, answered as `{"uin","user_group"}`. */
export async function signIn(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  user: UserRecord,
  start: SignInStart,
): Promise<SignedInView> {
  await startSignedInSession(ctx, request, reply, user, start);
  return { uin: user.uin, user_group: user.userGroup };
}
