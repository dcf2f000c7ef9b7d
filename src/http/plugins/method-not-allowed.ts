import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ErrorStyle } from '../responses.js';

interface KnownPath {
  readonly pattern: RegExp;
  readonly methods: Set<string>;
  /** The convention of the routes at this path, for the 405 answer. */
  readonly errorStyle: ErrorStyle;
}

/** What to answer a request whose path exists with other methods. */
export interface MethodNotAllowed {
  readonly allow: string;
  readonly errorStyle: ErrorStyle;
}

/** `/v1/admin/users/:uin` → a pattern matching `/v1/admin/users/10001`. */
function pathPattern(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) return '[^/]+';
      if (segment === '*') return '.*';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}$`);
}

/**
 * RFC 9110 §15.5.6: a wrong method on a known path is 405 with `Allow`, not 404. Every route is recorded as
 * it is added (so register this before the routes), and the not-found handler asks `allowedMethods`.
 */
export function recordRoutes(
  app: FastifyInstance,
): (request: FastifyRequest) => MethodNotAllowed | undefined {
  const paths = new Map<string, KnownPath>();
  app.addHook('onRoute', (route) => {
    let known = paths.get(route.url);
    if (known === undefined) {
      known = {
        pattern: pathPattern(route.url),
        methods: new Set(),
        errorStyle: route.config?.errorStyle ?? 'envelope',
      };
      paths.set(route.url, known);
    }
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      known.methods.add(method.toUpperCase());
    }
  });

  return (request) => {
    const path = request.url.split('?')[0] ?? '';
    const methods = new Set<string>();
    let errorStyle: ErrorStyle | undefined;
    for (const known of paths.values()) {
      if (!known.pattern.test(path)) continue;
      for (const method of known.methods) methods.add(method);
      errorStyle ??= known.errorStyle;
    }
    if (methods.size === 0 || methods.has(request.method)) return undefined;
    return { allow: [...methods].sort().join(', '), errorStyle: errorStyle ?? 'envelope' };
  };
}
