import { unlockAccount } from '../../../domain/login-throttle.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { auditAdminOnUser } from './require-admin.js';
import { adminUserAction } from './user-action.js';

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

  adminUserAction(app, ctx, 'POST', '/v1/admin/users/:uin/reset-code', async (uin, request) => {
    const { code, expiresAt } = await ctx.resetCodes.issue(uin);
    await auditAdminOnUser(ctx, request, 'reset_code_issued', uin);
    // Shown this once; only its digest is stored.
    return ok({ code, expires_at: new Date(expiresAt).toISOString() });
  });
};
