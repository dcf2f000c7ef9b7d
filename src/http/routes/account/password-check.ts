import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import { DirectoryUnavailable } from '../../../domain/directory.js';
import type { UserRecord } from '../../../storage/store.js';
import { directoryUnavailable, tooManyAttempts, wrongCredentials } from '../../api-error.js';

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
