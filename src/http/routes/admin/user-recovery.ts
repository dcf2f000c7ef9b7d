import { findUser, unlockUser } from '../../../domain/admin-reads.js';
import { DIRECTORY_OWNS_PASSWORD, isDirectoryUser } from '../../../domain/directory-users.js';
import { directoryOwnsPassword } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { userTarget } from '../../../domain/audit.js';
import { auditAdminAction, auditAdminOnUser } from './audit-actor.js';
import { adminUserAction } from './user-action.js';
import { ResetCodeAnswers } from './answers.js';

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

  adminUserAction(
    app,
    ctx,
    'POST',
    '/v1/admin/users/:uin/reset-code',
    async (uin, request) => {
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
      const { code, expiresAt } = await ctx.resetCodes.issue(uin);
      await auditAdminOnUser(ctx, request, 'reset_code_issued', uin);
      // Shown this once; only its digest is stored.
      return ok({ code, expires_at: new Date(expiresAt).toISOString() });
    },
    ResetCodeAnswers,
  );
};
