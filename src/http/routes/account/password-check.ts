import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import { DirectoryUnavailable } from '../../../domain/directory.js';
import type { UserRecord } from '../../../storage/store.js';
import {
  directoryUnavailable,
  passwordAgainRequired,
  tooManyAttempts,
  wrongCredentials,
} from '../../api-error.js';
import type { SignedIn } from '../../session-cookie.js';

/** A sign-in this recent counts as the password typed again (docs/security.md#second-factors). */
export const RECENT_SIGN_IN_MS = 5 * 60_000;

/**
 * Checks the current password a signed-in user typed again, to change it or to remove a second factor (which
 * weakens the account). It is a password guess like any other, so it is throttled as sign-ins are
 * (docs/security.md); `onWrong` runs before a wrong one is refused.
 */
export async function requirePassword(
  ctx: AppContext,
  request: FastifyRequest,
  user: UserRecord,
  password: string,
  onWrong?: () => Promise<void>,
): Promise<void> {
  const attempt = await ctx.loginThrottle.begin(user.uin, request.ip);
  if (attempt.retryAfter > 0) throw tooManyAttempts(attempt.retryAfter);
  let verified: boolean;
  try {
    // The local hash, or the school's directory for a directory user (PasswordVerifier).
    verified = await ctx.passwords.verifyCurrent(user, password);
  } catch (error) {
    if (!(error instanceof DirectoryUnavailable)) throw error;
    await ctx.loginThrottle.notChecked(attempt);
    throw directoryUnavailable();
  }
  if (!verified) {
    await ctx.loginThrottle.failed(attempt);
    await onWrong?.();
    throw wrongCredentials();
  }
  await ctx.loginThrottle.succeeded(attempt);
}

/**
 * Adding or removing a second factor (docs/security.md#second-factors): the password typed again, or a session
 * that signed in under 5 minutes ago; otherwise 403 code 4, and the page asks for the password.
 */
export async function requireRecentSignIn(
  ctx: AppContext,
  request: FastifyRequest,
  signedIn: SignedIn,
  password: string | undefined,
): Promise<void> {
  if (password !== undefined) return requirePassword(ctx, request, signedIn.user, password);
  if (ctx.clock.now() - signedIn.session.createdAt < RECENT_SIGN_IN_MS) return;
  throw passwordAgainRequired();
}
