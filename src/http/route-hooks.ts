import type { onResponseHookHandler, RouteOptions } from 'fastify';

/**
 * Adds a hook to one route as it is added (from an `onRoute` hook), after the route's own. A route-level
 * hook can close over what it needs of the route, where a global hook would read `request.routeOptions`,
 * which Fastify builds anew on every access.
 */
export function appendRouteHook(route: RouteOptions, name: 'onResponse', hook: onResponseHookHandler): void {
  const own = route[name];
  route[name] = own === undefined ? [hook] : Array.isArray(own) ? [...own, hook] : [own, hook];
}
