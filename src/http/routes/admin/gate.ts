/**
 * The admin API's one permission check (docs/interface.md#roles). Every admin route declares what it needs
 * (`config: { permission: { action, target } }`, ./permissions.ts); a route without a declaration fails to
 * register, so a new route cannot be missed. The check runs in two hooks of this plugin, before any handler:
 * `onRequest` (./authenticate.ts: who, and may they do this action at all — before the body is read, so
 * nobody else learns anything from the routes' validation messages) and `preHandler` (./authorize.ts: on
 * whom, once the body is parsed).
 */
import type { AppContext } from '../../../app-context.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { findPrincipal, mayAttempt } from './authenticate.js';
import { authorizeTarget } from './authorize.js';
import { forbidden } from '../../api-error.js';
import { admit } from './principal.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route takes `Authorization: Bearer` (a service token) instead of the session cookie: with one,
     * the CSRF check is skipped, since no cookie is looked at (src/http/plugins/csrf.ts).
     */
    bearerTokens?: true;
  }
}

export function registerAdminGate(app: Parameters<RoutePlugin>[0], ctx: AppContext): void {
  app.addHook('onRoute', (route) => {
    if (!route.config?.permission) {
      throw new Error(
        `${String(route.method)} ${route.url} declares no permission: every admin route needs config.permission`,
      );
    }
    route.config = { ...route.config, bearerTokens: true };
  });

  app.addHook('onRequest', async (request) => {
    const permission = request.routeOptions.config.permission;
    if (!permission) throw new Error('an admin route without a permission was served');
    const principal = await findPrincipal(ctx, request);
    if (!mayAttempt(principal, permission.action)) {
      throw forbidden(
        principal.kind === 'service'
          ? 'the token has no scope for this call'
          : 'your role does not allow this call',
      );
    }
    admit(request, principal);
  });

  app.addHook('preHandler', authorizeTarget(ctx));
}
