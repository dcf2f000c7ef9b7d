/**
 * `DELETE /v1/admin/users/:uin/second-factors` (docs/interface.md#second-factor): an admin removes every
 * second factor of a user who lost them (phone and recovery codes); the user then signs in with the password
 * alone and enrols again.
 */
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { auditAdminOnUser } from './audit-actor.js';
import { adminUserAction } from './user-action.js';

export const adminSecondFactorRoutes: RoutePlugin = async (app, { ctx }) => {
  adminUserAction(app, ctx, 'DELETE', '/v1/admin/users/:uin/second-factors', async (uin, request) => {
    await ctx.secondFactors.removeAll(uin);
    await auditAdminOnUser(ctx, request, 'second_factors_removed_by_admin', uin);
    return ok({});
  });
};
