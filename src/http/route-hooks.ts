import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';

/** Told of one answered request of the route it was made for. */
export type AnsweredRequest = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * Made once per route as the route is added (its URL pattern; `undefined` for what no route matched, which
 * the not-found handler answers), it keeps what it needs of the route: a global hook would read
 * `request.routeOptions`, which Fastify builds anew on every access.
 */
export type ResponseObserver = (route: string | undefined) => AnsweredRequest;

export interface ResponseObservers {
  /** Before the routes are added: a route added earlier is not observed. */
  add(observer: ResponseObserver): void;
}

/**
 * Every answered request, told to each observer in the order added, from one `onResponse` hook per route and
 * one global hook for the not-found handler (which has no route hooks): a hook more per observer would
 * cost a turn of Fastify's hook runner on every request. Callback style: an async hook costs a promise.
 */
export function registerResponseObservers(app: FastifyInstance): ResponseObservers {
  const observers: ResponseObserver[] = [];
  const each = (route: string | undefined): AnsweredRequest[] =>
    observers.map((observer) => observer(route));
  app.addHook('onRoute', (route) => {
    const told = each(route.url);
    const hook: onResponseHookHandler = (request, reply, done) => {
      for (const answered of told) answered(request, reply);
      done();
    };
    const own = route.onResponse;
    route.onResponse = own === undefined ? [hook] : Array.isArray(own) ? [...own, hook] : [own, hook];
  });
  let unmatched: AnsweredRequest[] | undefined;
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) {
      unmatched ??= each(undefined);
      for (const answered of unmatched) answered(request, reply);
    }
    done();
  });
  return {
    add(observer) {
      observers.push(observer);
    },
  };
}
