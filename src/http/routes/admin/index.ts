import { type RoutePlugin, registerAll } from '../../route-plugin.js';
import { adminAppRoutes } from './apps.js';
import { adminAuditRoutes } from './audit.js';
import { requireAdmin } from './require-admin.js';
import { adminSecondFactorRoutes } from './second-factors.js';
import { adminUserImportRoutes } from './user-import.js';
import { adminUserRecoveryRoutes } from './user-recovery.js';
import { adminUsersBulkRoutes } from './users-bulk.js';
import { adminUserSignOutRoutes } from './user-sign-out.js';
import { adminUserRoutes } from './users.js';

/** The admin JSON API (docs/interface.md#admin-api). */
export const adminRoutes: RoutePlugin = async (app, { ctx }) => {
  // Fastify encapsulation: this hook guards the routes registered inside this plugin, never the public ones.
  app.addHook('onRequest', requireAdmin(ctx));
  // Answers carry client secrets and account lists: no browser or proxy may keep them.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('cache-control', 'no-store');
    return payload;
  });
  await registerAll(app, ctx, [
    adminAppRoutes,
    adminUserRoutes,
    adminUserImportRoutes,
    adminSecondFactorRoutes,
    adminUsersBulkRoutes,
    adminUserRecoveryRoutes,
    adminAuditRoutes,
    adminUserSignOutRoutes,
  ]);
};
