import type { FastifyInstance } from 'fastify';

/**
 * Once the server starts closing, every answer carries `Connection: close` (RFC 9112 §9.6), so the client
 * opens its next request elsewhere and the connection ends with the answer instead of idling for the
 * keep-alive timeout. (Fastify marks requests that arrive while closing itself; this covers the ones that
 * were already running.)
 */
export function registerConnectionDraining(app: FastifyInstance): void {
  let draining = false;
  app.addHook('preClose', (done) => {
    draining = true;
    done();
  });
  // A callback hook, not an async one: it runs on every answer and should cost no promise.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });
}
