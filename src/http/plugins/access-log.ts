import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { appendRouteHook } from '../route-hooks.js';

/**
 * One structured line per answered request (docs/operations.md#logs). Only the path is logged, never the
 * query string: a misbehaving client may put a code or token there, and nothing secret may reach the logs.
 */
export function registerAccessLog(app: FastifyInstance): void {
  // With info off (LOG_LEVEL=warn and quieter) no hook at all: it would run on every request for nothing.
  if (!['info', 'debug', 'trace'].includes(app.log.level)) return;
  // Through the server's logger with the request's id first: the same line as the request's own child
  // logger writes (pino puts a child's bindings before the line's fields), without making that child
  // (../lazy-child-logger.ts).
  const log = app.log;
  const line = (request: FastifyRequest, reply: FastifyReply, route: string | undefined): void => {
    const path = request.url.split('?', 1)[0];
    log.info(
      {
        reqId: request.id,
        method: request.method,
        path,
        route,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ip: request.ip,
      },
      'request',
    );
  };
  // Each route logs its own pattern, known here once: `request.routeOptions` is built anew on every access.
  // Callback style: an async hook costs a promise each time.
  app.addHook('onRoute', (route) => {
    const url = route.url;
    appendRouteHook(route, 'onResponse', (request, reply, done) => {
      line(request, reply, url);
      done();
    });
  });
  // What no route matched is answered by the not-found handler, which has no route hooks.
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) line(request, reply, undefined);
    done();
  });
}
