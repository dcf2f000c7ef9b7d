/**
 * The sign-in use case (docs/interface.md#second-factor): after the password, a pending sign-in while a second
 * factor is awaited; the second factor (a TOTP code, a recovery code or a passkey) or a passkey alone; and the
 * session that ends every sign-in. HTTP-free: the routes (src/http/routes/account/) read the cookies and
 * answer, this decides.
 */
import type { Clock } from '../clock.js';
import { AMR, passkeyMethod, withSecondFactor } from './amr.js';
import { type AuditLog, type AuditSource, userTarget } from './audit.js';
import type { Attempt, LoginThrottle } from './login-throttle.js';
import {
  type AuthenticationResponseJSON,
  PasskeyError,
  type PasskeyAssertion,
  type PasskeyService,
} from './passkeys.js';
import type { PendingSignInService } from './pending-sign-ins.js';
import type { SecondFactorKind, SecondFactorService } from './second-factors.js';
import type { SessionService } from './sessions.js';
import type { TotpService } from './totp.js';
import { type UserService, isActiveUser } from './users.js';
import type { PendingSignInRecord, UserRecord } from '../storage/store.js';

/** The services a sign-in passes through (the application context is one). */
export interface SignInContext {
  readonly clock: Clock;
  readonly users: UserService;
  readonly sessions: SessionService;
  readonly pendingSignIns: PendingSignInService;
  readonly secondFactors: SecondFactorService;
  readonly totp: TotpService;
  readonly passkeys: PasskeyService;
  readonly loginThrottle: LoginThrottle;
  readonly audit: AuditLog;
}

/** Ends what the given cookie values stand for (sessions or pending sign-ins): no session fixation. */
export async function endSignIns(ctx: SignInContext, cookieValues: readonly string[]): Promise<void> {
  for (const previous of cookieValues) {
    await ctx.sessions.end(previous);
    await ctx.pendingSignIns.endById(previous);
  }
}

/**
 * The password was right. A user with a second factor gets a pending sign-in (the previous sign-ins behind
 * `previous` ended) and the factors to choose from; answers undefined when the password alone signs the user
 * in. `shared` ("This is a shared computer") is kept for the session the second factor completes.
 */
export async function beginSecondFactor(
  ctx: SignInContext,
  user: UserRecord,
  attempt: Attempt,
  shared: boolean,
  previous: readonly string[],
): Promise<{ id: string; factors: SecondFactorKind[] } | undefined> {
  const factors = await ctx.secondFactors.factorsOf(user.uin);
  if (factors.length === 0) return undefined;
  await ctx.loginThrottle.passwordAccepted(attempt);
  await endSignIns(ctx, previous);
  return { id: await ctx.pendingSignIns.begin(user.uin, shared), factors };
}

/** How a sign-in ends in a session. */
export interface SignInStart {
  /** How the user proved who they are (RFC 8176), recorded in the audit trail; a password when absent. */
  readonly amr?: readonly string[];
  /** "This is a shared computer" (docs/interface.md#sessions-and-sign-out). */
  readonly shared: boolean;
}

/**
 * Starts the real session (a fresh id; the previous sign-ins behind `previous` ended) and records the
 * sign-in; answers the new session's cookie value.
 */
export async function startSession(
  ctx: SignInContext,
  source: AuditSource,
  user: UserRecord,
  { amr, shared }: SignInStart,
  previous: readonly string[],
): Promise<string> {
  await endSignIns(ctx, previous);
  const { id } = await ctx.sessions.start(user.uin, {
    amr,
    shared,
    ip: source.ip,
    userAgent: source.headers['user-agent'],
  });
  await ctx.users.recordSignIn(user.uin);
  await ctx.audit.recordOwn(source, user.uin, 'sign_in', amr ? { detail: { amr } } : {});
  return id;
}

/** One second-factor answer: exactly one of the three. */
export type SecondFactorAnswer =
  | { readonly totp: string }
  | { readonly recoveryCode: string }
  | { readonly passkey: AuthenticationResponseJSON };

export type SecondFactorOutcome =
  /** Too many attempts on this account or from this address. */
  | { readonly outcome: 'throttled'; readonly retryAfter: number }
  /** A wrong answer; `ended` when it was the last one allowed and the pending sign-in is over. */
  | { readonly outcome: 'refused'; readonly ended: boolean }
  /** Another request completed the pending sign-in first, or the account is no longer active. */
  | { readonly outcome: 'gone' }
  | { readonly outcome: 'accepted'; readonly user: UserRecord; readonly amr: readonly string[] };

/** The RFC 8176 method an answer proves, or undefined when it is wrong. */
async function verifyAnswer(
  ctx: SignInContext,
  uin: number,
  answer: SecondFactorAnswer,
): Promise<string | undefined> {
  if ('totp' in answer) {
    return (await ctx.totp.verify(uin, answer.totp)) ? AMR.oneTimePassword : undefined;
  }
  if ('recoveryCode' in answer) {
    return (await ctx.secondFactors.useRecoveryCode(uin, answer.recoveryCode))
      ? AMR.oneTimePassword
      : undefined;
  }
  const assertion = await passkeyAssertion(ctx, 'second-factor', uin, answer.passkey);
  return assertion && passkeyMethod(assertion.passkey);
}

const answerKind = (answer: SecondFactorAnswer): string =>
  'totp' in answer ? 'totp' : 'recoveryCode' in answer ? 'recovery_code' : 'passkey';

/**
 * Completes a pending sign-in with a second factor. Second-factor guesses are sign-in attempts: the same
 * throttle, per account and per address.
 */
export async function completeSecondFactor(
  ctx: SignInContext,
  source: AuditSource,
  pending: PendingSignInRecord,
  answer: SecondFactorAnswer,
): Promise<SecondFactorOutcome> {
  const attempt = await ctx.loginThrottle.begin(pending.uin, source.ip);
  if (attempt.retryAfter > 0) return { outcome: 'throttled', retryAfter: attempt.retryAfter };
  const method = await verifyAnswer(ctx, pending.uin, answer);
  if (method === undefined) {
    await ctx.loginThrottle.failed(attempt);
    // docs/security.md: a wrong second factor means someone knows the password; the owner and the admins see it.
    await ctx.audit.record({
      action: 'sign_in',
      outcome: 'failure',
      target: userTarget(pending.uin),
      detail: { second_factor: answerKind(answer) },
      request: source,
    });
    return { outcome: 'refused', ended: await ctx.pendingSignIns.fail(pending) };
  }
  // Exactly one request completes a pending sign-in.
  if (!(await ctx.pendingSignIns.end(pending))) return { outcome: 'gone' };
  await ctx.loginThrottle.succeeded(attempt);
  const user = await ctx.users.find(pending.uin);
  if (!user || !isActiveUser(user, ctx.clock.now())) return { outcome: 'gone' };
  // The password and a second factor: the factors the account has now are its owner's (docs/security.md#second-factors).
  await ctx.secondFactors.recordSecondFactorSignIn(user.uin);
  return { outcome: 'accepted', user, amr: withSecondFactor(method) };
}

/**
 * Passwordless sign-in: the user of a verified passkey, with the methods it proves, or the uin it named (if
 * any) when it is refused. An expired account acts as disabled, as for a password sign-in
 * (docs/interface.md#people-groups-and-audit).
 */
export async function passkeySignIn(
  ctx: SignInContext,
  response: AuthenticationResponseJSON,
): Promise<{ user: UserRecord; amr: readonly string[] } | { refusedUin: number | undefined }> {
  const assertion = await passkeyAssertion(ctx, 'passwordless', null, response);
  const user = assertion && (await ctx.users.find(assertion.passkey.uin));
  if (!assertion || !user || !isActiveUser(user, ctx.clock.now())) {
    return { refusedUin: assertion?.passkey.uin };
  }
  // The passkey is something the user has, unlocked by something they know or are (user verification).
  return { user, amr: [passkeyMethod(assertion.passkey), AMR.multiFactor] };
}

/** The verified assertion, or undefined when it does not verify (the reason is logged, not answered). */
async function passkeyAssertion(
  ctx: SignInContext,
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
