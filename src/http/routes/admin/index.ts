import { type RoutePlugin, registerAll } from '../../route-plugin.js';
import { adminAppReadRoutes } from './apps-read.js';
import { adminAppWriteRoutes } from './apps-write.js';
import { adminAppSecretRoutes } from './apps-secret.js';
import { adminAuditRoutes } from './audit.js';
import { registerAdminGate } from './gate.js';
import { adminSecondFactorRoutes } from './second-factors.js';
import { adminUserChangeRoutes } from './user-change.js';
import { adminUserCreateRoutes } from './user-create.js';
import { adminUserImportRoutes } from './user-import.js';
import { adminUserReadRoutes } from './users-read.js';
import { adminUserRecoveryRoutes } from './user-recovery.js';
import { adminUsersBulkRoutes } from './users-bulk.js';
import { adminUserSignOutRoutes } from './user-sign-out.js';

/** The admin JSON API (docs/interface.md#admin-api). */
export const adminRoutes: RoutePlugin = async (app, { ctx }) => {
  // Fastify encapsulation: the gate guards the routes registered inside this plugin, never the public ones.
  registerAdminGate(app, ctx);
  // Answers carry client secrets and account lists: no browser or proxy may keep them.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('cache-control', 'no-store');
    return payload;
  });
  await registerAll(app, ctx, [
    adminAppReadRoutes,
    adminAppWriteRoutes,
    adminAppSecretRoutes,
    adminUserReadRoutes,
    adminUserCreateRoutes,
    adminUserChangeRoutes,
    adminUserImportRoutes,
    adminSecondFactorRoutes,
    adminUsersBulkRoutes,
    adminUserRecoveryRoutes,
    adminAuditRoutes,
    adminUserSignOutRoutes,
  ]);
};
