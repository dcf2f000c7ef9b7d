import { appTarget } from '../../../domain/audit.js';
import { notFound } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { auditAdminAction } from './audit-actor.js';
import { ClientIdParams, rejectBody } from './schemas.js';

const permission = { action: 'apps.manage', target: 'none' } as const;
const options = { schema: { params: ClientIdParams }, config: { csrf: true, permission } } as const;

/**
 * `POST /v1/admin/apps/:client_id/rotate-secret` and `DELETE /v1/admin/apps/:client_id`
 * (docs/interface.md#admin-api): admins only.
 */
export const adminAppSecretRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post('/v1/admin/apps/:client_id/rotate-secret', options, async (request) => {
    rejectBody(request);
    const { client_id: clientId } = request.params;
    const clientSecret = await ctx.apps.rotateSecret(clientId);
    if (clientSecret === undefined) throw notFound(`no app with client_id ${clientId}`);
    await auditAdminAction(ctx, request, { action: 'app_secret_rotated', target: appTarget(clientId) });
    return ok({ client_id: clientId, client_secret: clientSecret });
  });

  app.delete('/v1/admin/apps/:client_id', options, async (request) => {
    rejectBody(request);
    const { client_id: clientId } = request.params;
    // The store deletes the app's codes, tokens and consents with it (docs/interface.md#legacy-user-information: its tokens stop working).
    if (!(await ctx.apps.delete(clientId))) throw notFound(`no app with client_id ${clientId}`);
    await auditAdminAction(ctx, request, { action: 'app_deleted', target: appTarget(clientId) });
    return ok({});
  });
};
