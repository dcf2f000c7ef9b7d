import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import type { Envelope } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { UinParams, rejectBody } from './schemas.js';
import { existingUserUin } from './user-fields.js';

/**
 * An admin's action on one existing user, with no body: `POST` or `DELETE /v1/admin/users/:uin/…`
 * (docs/interface.md#admin-api). A uin that is not one answers 400, a user that does not exist 404; `act`
 * runs only for a user who does.
 */
export function adminUserAction<T>(
  app: Parameters<RoutePlugin>[0],
  ctx: AppContext,
  method: 'POST' | 'DELETE',
  url: string,
  act: (uin: number, request: FastifyRequest) => Promise<Envelope<T>>,
): void {
  app.route({
    method,
    url,
    schema: { params: UinParams },
    // docs/interface.md#roles: an admin, a helpdesk member for their people, a token with admin:users:write.
    config: { csrf: true, permission: { action: 'users.help', target: 'path-user' } },
    handler: async (request) => {
      rejectBody(request);
      return act(await existingUserUin(ctx, request.params.uin), request);
    },
  });
}
