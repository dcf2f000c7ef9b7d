import { unlockAccount } from '../../../domain/login-throttle.js';
import { notFound } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { auditAdminOnUser } from './require-admin.js';
import { UinParams, rejectBody } from './schemas.js';
import { pathUin } from './users.js';

/**
 * Getting a person back in (docs/interface.md#people-groups-and-audit): **Unlock** ends an account's sign-in
 * lock, and a one-time reset code lets someone without email choose a new password on `#/reset`.
 */
export const adminUserRecoveryRoutes: RoutePlugin = async (app, { ctx }) => {
  async function requireUser(raw: string): Promise<number> {
    const uin = pathUin(raw);
    if (!(await ctx.store.users.find(uin))) throw notFound(`no user with uin ${uin}`);
    return uin;
  }

  app.post(
    '/v1/admin/users/:uin/unlock',
    { schema: { params: UinParams }, config: { csrf: true } },
    async (request) => {
      rejectBody(request);
      const uin = await requireUser(request.params.uin);
      await unlockAccount(ctx.store, uin);
      await auditAdminOnUser(ctx, request, 'user_unlocked', uin);
      return ok({});
    },
  );

  app.post(
    '/v1/admin/users/:uin/reset-code',
    { schema: { params: UinParams }, config: { csrf: true } },
    async (request) => {
      rejectBody(request);
      const uin = await requireUser(request.params.uin);
      const { code, expiresAt } = await ctx.resetCodes.issue(uin);
      await auditAdminOnUser(ctx, request, 'reset_code_issued', uin);
      // Shown this once; only its digest is stored.
      return ok({ code, expires_at: new Date(expiresAt).toISOString() });
    },
  );
};
