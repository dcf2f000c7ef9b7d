import { ok } from '../../responses.js';
import { auditAdminOnUser } from './require-admin.js';
import { notFound } from '../../api-error.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { UinParams, rejectBody } from './schemas.js';

/**
 * `POST /v1/admin/users/:uin/sign-out`: an admin ends every session of a user (a lost phone, a shared
 * computer left signed in); their apps are told by back-channel logout (docs/interface.md#sessions-and-sign-out).
 */
export const adminUserSignOutRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/admin/users/:uin/sign-out',
    { schema: { params: UinParams }, config: { csrf: true } },
    async (request) => {
      rejectBody(request);
      const uin = Number(request.params.uin);
      if (!Number.isSafeInteger(uin) || !(await ctx.store.users.find(uin))) {
        throw notFound(`no user with uin ${request.params.uin}`);
      }
      const ended = await ctx.sessions.endAll(uin);
      await auditAdminOnUser(ctx, request, 'user_signed_out_by_admin', uin, { sessions: ended });
      return ok({ sessions_ended: ended });
    },
  );
};
