import { adminAppViews, findApp } from '../../../domain/admin-reads.js';
import { notFound } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { ClientIdParams } from './schemas.js';

const permission = { action: 'apps.read', target: 'none' } as const;

/** `GET /v1/admin/apps` and `GET /v1/admin/apps/:client_id` (docs/interface.md#admin-api): admins only. */
export const adminAppReadRoutes: RoutePlugin = async (app, { ctx }) => {
  app.get('/v1/admin/apps', { config: { permission } }, async () => ok({ apps: await adminAppViews(ctx) }));

  app.get(
    '/v1/admin/apps/:client_id',
    { schema: { params: ClientIdParams }, config: { permission } },
    async (request) => {
      const found = await findApp(ctx, request.params.client_id);
      if (!found) throw notFound(`no app with client_id ${request.params.client_id}`);
      const [view] = await adminAppViews(ctx, [found]);
      return ok({ app: view });
    },
  );
};
