import { createHash, timingSafeEqual } from 'node:crypto';
import type { Registry } from 'prom-client';
import type { DatabaseStatus } from '../../domain/database-status.js';
import { DatabaseTimeout } from '../../storage/database-errors.js';
import type { RoutePlugin } from '../route-plugin.js';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * How long /readyz waits for the database: a load balancer's probe must get an answer, and during a network
 * partition a query may hang until the query timeout (docs/interface.md#configuration).
 */
const READINESS_TIMEOUT_MS = 2_000;

/**
 * The store's readiness probe, bounded: one probe at a time, shared by the calls that arrive while it runs,
 * so a hanging database never piles probes up on the pool's connections.
 */
function boundedProbe(database: DatabaseStatus): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= database.ping().finally(() => {
      running = undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new DatabaseTimeout('the readiness probe', READINESS_TIMEOUT_MS)),
        READINESS_TIMEOUT_MS,
      );
    });
    return Promise.race([running, timeout]).finally(() => clearTimeout(timer));
  };
}

/**
 * docs/operations.md#health-readiness-and-metrics: liveness, readiness (the database reads and commits a
 * write, within 2 s) and Prometheus metrics.
 */
export const healthRoutes: RoutePlugin<{ registry: Registry }> = async (app, { ctx, registry }) => {
  const probe = boundedProbe(ctx.database);

  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    try {
      await probe();
    } catch (error) {
      app.databaseOutage.refused(error);
      return reply.code(503).send({ status: 'unavailable', database: ctx.database.kind });
    }
    app.databaseOutage.answered();
    return { status: 'ok', database: ctx.database.kind };
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
