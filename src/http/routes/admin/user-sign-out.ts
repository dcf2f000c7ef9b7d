import { ok } from '../../responses.js';
import { auditAdminOnUser } from './audit-actor.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { adminUserAction } from './user-action.js';

/**
 * `POST /v1/admin/users/:uin/sign-out`: an admin ends every session of a user (a lost phone, a shared
 * computer left signed in); their apps are told by back-channel logout (docs/interface.md#sessions-and-sign-out).
 */
export const adminUserSignOutRoutes: RoutePlugin = async (app, { ctx }) => {
  adminUserAction(app, ctx, 'POST', '/v1/admin/users/:uin/sign-out', async (uin, request) => {
    const ended = await ctx.sessions.endAll(uin);
    await auditAdminOnUser(ctx, request, 'user_signed_out_by_admin', uin, { sessions: ended });
    return ok({ sessions_ended: ended });
  });
};
