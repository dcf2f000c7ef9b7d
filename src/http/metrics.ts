import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { signInVerifications } from '../domain/passwords.js';
import type { ResponseObservers } from './route-hooks.js';

/** The `route` label of a request no route matched (a 404 or 405 from the not-found handler). */
const UNMATCHED = 'unmatched';

/** One label set of the request counter, and its requests not yet added to it. */
interface PendingCount {
  readonly labels: { readonly method: string; readonly route: string; readonly status: number };
  count: number;
}

/**
 * One route's share of the request metrics. Its counts are kept here and added to the counter when the
 * registry is read (prom-client hashes a label set on every `inc`, even through a labelled child, and this
 * runs on every request). The histogram is observed through the route's own child, resolved once.
 */
class RouteMetrics {
  /** By method, then status. */
  private readonly counts = new Map<string, Map<number, PendingCount>>();
  private readonly timer: Histogram.Internal<'route'>;

  constructor(
    readonly route: string,
    duration: Histogram<'route'>,
    /** Every label set in the order first seen: the counter lists them in that order, as before. */
    private readonly seen: PendingCount[],
  ) {
    this.timer = duration.labels({ route });
  }

  record(method: string, status: number, seconds: number): void {
    let byStatus = this.counts.get(method);
    if (byStatus === undefined) {
      byStatus = new Map();
      this.counts.set(method, byStatus);
    }
    const pending = byStatus.get(status);
    if (pending === undefined) {
      const first = { labels: { method, route: this.route, status }, count: 1 };
      byStatus.set(status, first);
      this.seen.push(first);
    } else pending.count += 1;
    this.timer.observe(seconds);
  }
}

/**
 * Prometheus metrics (docs/operations.md#health-readiness-and-metrics): request counts and latencies by
 * route, the sign-ins' password verifications, plus the process's own.
 */
export function registerMetrics(responses: ResponseObservers): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'campus_sso_' });
  const seen: PendingCount[] = [];
  new Counter({
    name: 'campus_sso_http_requests_total',
    help: 'HTTP requests answered, by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
    // At a scrape: the requests counted since the last one.
    collect() {
      for (const pending of seen) {
        if (pending.count === 0) continue;
        this.inc(pending.labels, pending.count);
        pending.count = 0;
      }
    },
  });
  const duration = new Histogram({
    name: 'campus_sso_http_request_duration_seconds',
    help: 'HTTP request duration, by route',
    labelNames: ['route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  new Counter({
    name: 'campus_sso_password_verifications_total',
    help: "Sign-ins' argon2id verifications, by parameter set and hash (the account's own, or a dummy)",
    labelNames: ['parameters', 'hash'] as const,
    registers: [registry],
    // This process's totals (passwords.ts counts them for every server it runs).
    collect() {
      this.reset();
      for (const { parameters, hash, count } of signInVerifications()) this.inc({ parameters, hash }, count);
    },
  });
  const metricsOf = new Map<string, RouteMetrics>();
  const forRoute = (route: string): RouteMetrics => {
    let metrics = metricsOf.get(route);
    if (metrics === undefined) {
      metrics = new RouteMetrics(route, duration, seen);
      metricsOf.set(route, metrics);
    }
    return metrics;
  };
  // Each route's labels are resolved once, as the route is added.
  responses.add((route) => {
    const metrics = forRoute(route ?? UNMATCHED);
    return (request, reply) => metrics.record(request.method, reply.statusCode, reply.elapsedTime / 1000);
  });
  return registry;
}
