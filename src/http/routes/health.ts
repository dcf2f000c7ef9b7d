import type { Registry } from 'prom-client';
import type { RoutePlugin } from '../route-plugin.js';

/** SPEC §8: liveness, readiness (the database answers) and Prometheus metrics. */
export const healthRoutes: RoutePlugin<{ registry: Registry }> = async (app, { ctx, registry }) => {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    try {
      await ctx.store.ping();
      return { status: 'ok', database: ctx.store.kind };
    } catch (error) {
      _request.log.warn({ err: error }, 'database unreachable');
      return reply.code(503).send({ status: 'unavailable', database: ctx.store.kind });
    }
  });

  app.get('/metrics', async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
};
