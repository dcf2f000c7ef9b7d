import { Type, type Static } from '@sinclair/typebox';
import { findUser, unlockUser } from '../../../domain/admin-reads.js';
import { DIRECTORY_OWNS_PASSWORD, isDirectoryUser } from '../../../domain/directory-users.js';
import { RESET_CODE_MAX_DAYS, RESET_CODE_MIN_DAYS } from '../../../domain/reset-codes.js';
import { directoryOwnsPassword } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { userTarget } from '../../../domain/audit.js';
import { auditAdminAction, auditAdminOnUser } from './audit-actor.js';
import { UinParams } from './schemas.js';
import { adminUserAction } from './user-action.js';
import { existingUserUin } from './user-fields.js';
import { ResetCodeAnswers } from './answers.js';

/** The code's lifetime in whole days, 1 to 14 (sign-in cards for a class rollout); without it, 24 hours. */
const ResetCodeBody = Type.Union([
  Type.Object(
    { days: Type.Optional(Type.Integer({ minimum: RESET_CODE_MIN_DAYS, maximum: RESET_CODE_MAX_DAYS })) },
    { additionalProperties: false },
  ),
  Type.Null(),
]);

/**
 * Getting a person back in (docs/interface.md#people-groups-and-audit): **Unlock** ends an account's sign-in
 * lock, and a one-time reset code lets someone without email choose a new password on `#/reset`.
 */
export const adminUserRecoveryRoutes: RoutePlugin = async (app, { ctx }) => {
  adminUserAction(app, ctx, 'POST', '/v1/admin/users/:uin/unlock', async (uin, request) => {
    await unlockUser(ctx, uin);
    await auditAdminOnUser(ctx, request, 'user_unlocked', uin);
    return ok({});
  });

  app.post(
    '/v1/admin/users/:uin/reset-code',
    {
      schema: { params: UinParams, body: ResetCodeBody, response: ResetCodeAnswers },
      // docs/interface.md#roles: an admin, a helpdesk member for their people, a token with admin:users:write.
      config: { csrf: true, permission: { action: 'users.help', target: 'path-user' } },
    },
    async (request) => {
      const uin = await existingUserUin(ctx, request.params.uin);
      const days = (request.body as Static<typeof ResetCodeBody> | undefined)?.days;
      // docs/interface.md#the-schools-directory: a directory user's password is reset in the directory.
      const user = await findUser(ctx, uin);
      if (user && isDirectoryUser(user)) {
        await auditAdminAction(ctx, request, {
          action: 'reset_code_issued',
          outcome: 'failure',
          target: userTarget(uin),
          detail: { reason: 'directory_user' },
        });
        throw directoryOwnsPassword(DIRECTORY_OWNS_PASSWORD);
      }
      const { code, expiresAt } = await ctx.resetCodes.issue(uin, days);
      await auditAdminOnUser(
        ctx,
        request,
        'reset_code_issued',
        uin,
        days === undefined ? undefined : { days },
      );
      // Shown this once; only its digest is stored.
      return ok({ code, expires_at: new Date(expiresAt).toISOString() });
    },
  );
};
