import type { FastifyInstance } from 'fastify';
import type { ResponseObservers } from '../route-hooks.js';

/**
 * One structured line per answered request (docs/operations.md#logs). Only the path is logged, never the
 * query string: a misbehaving client may put a code or token there, and nothing secret may reach the logs.
 */
export function registerAccessLog(app: FastifyInstance, responses: ResponseObservers): void {
  // With info off (LOG_LEVEL=warn and quieter) no observer at all: it would run on every request for nothing.
  if (!['info', 'debug', 'trace'].includes(app.log.level)) return;
  // Through the server's logger with the request's id first: the same line as the request's own child
  // logger writes (pino puts a child's bindings before the line's fields), without making that child
  // (../lazy-child-logger.ts).
  const log = app.log;
  responses.add((route) => (request, reply) => {
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
  });
}
