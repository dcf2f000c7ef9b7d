import type { FastifyInstance } from 'fastify';

/**
 * One structured line per answered request (docs/operations.md#logs). Only the path is logged, never the
 * query string: a misbehaving client may put a code or token there, and nothing secret may reach the logs.
 */
export function registerAccessLog(app: FastifyInstance): void {
  // With info off (LOG_LEVEL=warn and quieter) no hook at all: it would run on every request for nothing.
  if (!['info', 'debug', 'trace'].includes(app.log.level)) return;
  app.addHook('onResponse', async (request, reply) => {
    const path = request.url.split('?', 1)[0];
    request.log.info(
      {
        method: request.method,
        path,
        route: request.routeOptions.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ip: request.ip,
      },
      'request',
    );
  });
}
