/**
 * `DELETE /v1/admin/users/:uin/second-factors` (docs/interface.md#second-factor): an admin removes every
 * second factor of a user who lost them (phone and recovery codes); the user then signs in with the password
 * alone and enrols again.
 */
import { isValidUin } from '../../../domain/users.js';
import { badRequest, notFound } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { auditAdminOnUser } from './require-admin.js';
import { UinParams, rejectBody } from './schemas.js';

export const adminSecondFactorRoutes: RoutePlugin = async (app, { ctx }) => {
  app.delete(
    '/v1/admin/users/:uin/second-factors',
    { schema: { params: UinParams }, config: { csrf: true } },
    async (request) => {
      rejectBody(request);
      const uin = Number(request.params.uin);
      if (!isValidUin(uin))
        throw badRequest(`uin must be a positive whole number up to ${Number.MAX_SAFE_INTEGER}`);
      if (!(await ctx.store.users.find(uin))) throw notFound('no such user');
      await ctx.secondFactors.removeAll(uin);
      await auditAdminOnUser(ctx, request, 'second_factors_removed_by_admin', uin);
      return ok({});
    },
  );
};
