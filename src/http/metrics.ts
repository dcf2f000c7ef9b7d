import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics (docs/operations.md#health-readiness-and-metrics): request counts and latencies by
 * route, plus the process's own.
 */
export function registerMetrics(app: FastifyInstance): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'campus_sso_' });
  const requests = new Counter({
    name: 'campus_sso_http_requests_total',
    help: 'HTTP requests answered, by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'campus_sso_http_request_duration_seconds',
    help: 'HTTP request duration, by route',
    labelNames: ['route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  // The labelled children, kept per label set: prom-client would otherwise hash a labels object per call.
  const counters = new Map<string, Counter.Internal>();
  const timers = new Map<string, Histogram.Internal<'route'>>();
  // Callback style: this runs on every request, and an async hook costs a promise each time.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let counter = counters.get(key);
    if (counter === undefined) {
      counter = requests.labels({ method: request.method, route, status: reply.statusCode });
      counters.set(key, counter);
    }
    counter.inc();
    let timer = timers.get(route);
    if (timer === undefined) {
      timer = duration.labels({ route });
      timers.set(route, timer);
    }
    timer.observe(reply.elapsedTime / 1000);
    done();
  });
  return registry;
}
