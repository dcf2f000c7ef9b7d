import { Type, type Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { RESET_CODE_MAX_DAYS, RESET_CODE_MIN_DAYS } from '../../../domain/reset-codes.js';
import type { Envelope } from '../../responses.js';
import { unlockAccount } from '../../../domain/login-throttle.js';
import { DIRECTORY_OWNS_PASSWORD, isDirectoryUser } from '../../../domain/directory-users.js';
import { directoryOwnsPassword } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { userTarget } from '../../../domain/audit.js';
import { auditAdminOnUser, currentAdmin } from './require-admin.js';
import { adminUserAction } from './user-action.js';
import { UinParams } from './schemas.js';
import { existingUserUin } from './users.js';

/** The code's lifetime in whole days, 1 to 14 (sign-in cards for a class rollout); without it, 24 hours. */
const ResetCodeBody = Type.Union([
  Type.Object(
    { days: Type.Optional(Type.Integer({ minimum: RESET_CODE_MIN_DAYS, maximum: RESET_CODE_MAX_DAYS })) },
    { additionalProperties: false },
  ),
  Type.Null(),
]);
type ResetCodeRequest = Static<typeof ResetCodeBody>;

/**
 * Getting a person back in (docs/interface.md#people-groups-and-audit): **Unlock** ends an account's sign-in
 * lock, and a one-time reset code lets someone without email choose a new password on `#/reset`.
 */
export const adminUserRecoveryRoutes: RoutePlugin = async (app, { ctx }) => {
  adminUserAction(app, ctx, 'POST', '/v1/admin/users/:uin/unlock', async (uin, request) => {
    await unlockAccount(ctx.store, uin);
    await auditAdminOnUser(ctx, request, 'user_unlocked', uin);
    return ok({});
  });

  app.post(
    '/v1/admin/users/:uin/reset-code',
    { schema: { params: UinParams, body: ResetCodeBody }, config: { csrf: true } },
    async (request) => issueResetCode(await existingUserUin(ctx, request.params.uin), request),
  );

  async function issueResetCode(uin: number, request: FastifyRequest): Promise<Envelope<object>> {
    const days = (request.body as ResetCodeRequest | undefined)?.days;
    // docs/interface.md#the-schools-directory: a directory user's password is reset in the directory.
    const user = await ctx.store.users.find(uin);
    if (user && isDirectoryUser(user)) {
      await ctx.audit.record({
        action: 'reset_code_issued',
        outcome: 'failure',
        actorUin: currentAdmin(request).uin,
        target: userTarget(uin),
        detail: { reason: 'directory_user' },
        request,
      });
      throw directoryOwnsPassword(DIRECTORY_OWNS_PASSWORD);
    }
    const { code, expiresAt } = await ctx.resetCodes.issue(uin, days);
    await auditAdminOnUser(ctx, request, 'reset_code_issued', uin, days === undefined ? undefined : { days });
    // Shown this once; only its digest is stored.
    return ok({ code, expires_at: new Date(expiresAt).toISOString() });
  }
};
