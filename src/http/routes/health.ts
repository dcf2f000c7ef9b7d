import { createHash, timingSafeEqual } from 'node:crypto';
import type { Registry } from 'prom-client';
import type { RoutePlugin } from '../route-plugin.js';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** docs/operations.md: liveness, readiness (the database answers) and Prometheus metrics. */
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

  const metricsToken = ctx.config.metricsToken;
  const expected = metricsToken === undefined ? undefined : digest(`Bearer ${metricsToken}`);
  app.get('/metrics', async (request, reply) => {
    // METRICS_TOKEN (docs/operations.md): digests of equal length, compared in constant time.
    if (expected !== undefined && !timingSafeEqual(digest(request.headers.authorization ?? ''), expected)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="campus-sso metrics"')
        .send({ status: 'unauthorized' });
    }
    reply.type(registry.contentType);
    return registry.metrics();
  });
};
