import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.js';
import { forbidden } from '../api-error.js';

/**
 * CSRF defence for the cookie-authenticated JSON calls (docs/interface.md#browser-session-api): the session cookie is SameSite=Lax, the
 * browser's Origin (when sent) must be this server's, and a body must be JSON — a cross-site HTML form can
 * send none of these, and a cross-site fetch with JSON needs a CORS preflight that is never granted.
 */
export function registerCsrfCheck(app: FastifyInstance, config: Config): void {
  const baseOrigin = new URL(config.baseUrl).origin;

  const refusal = (request: FastifyRequest): Error | undefined => {
    const origin = request.headers.origin;
    // Compared with BASE_URL's origin, never with the request's own Host header: under DNS rebinding an
    // attacker's page reaches this server under the attacker's host name, and Host and Origin then agree.
    if (origin !== undefined && origin !== baseOrigin) return forbidden('cross-origin request refused');
    if (request.headers['sec-fetch-site'] === 'cross-site') return forbidden('cross-site request refused');
    const contentType = request.headers['content-type'];
    const hasBody = contentType !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
    if (hasBody && !/^application\/json\s*(;|$)/i.test(contentType ?? '')) {
      return forbidden('state-changing calls must send Content-Type: application/json');
    }
    return undefined;
  };

  const checked = (request: FastifyRequest): boolean => {
    // Read once: Fastify builds `routeOptions` anew on every access, and this runs on every request.
    const { csrf, bearerTokens } = request.routeOptions.config;
    // docs/interface.md#service-tokens-at-the-admin-api: a service token is sent by a program, never by a browser on its
    // own (Authorization is no CORS-safelisted header), and these routes then ignore the cookie.
    if (bearerTokens === true && request.headers.authorization !== undefined) {
      return false;
    }
    if (csrf !== 'json-only') return csrf === true;
    return !/^application\/x-www-form-urlencoded\s*(;|$)/i.test(request.headers['content-type'] ?? '');
  };

  // Callback style: it runs on every request (most need no check), and an async hook costs a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    done(checked(request) ? refusal(request) : undefined);
  });
}
