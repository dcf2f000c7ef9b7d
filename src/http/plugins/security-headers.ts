import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/config.js';

/**
 * docs/security.md#browser-sign-in-and-sessions and RFC 9700 §4.16: pages cannot be framed, no referrer leaks
 * codes, and scripts come only from this origin. Styles may be inline because the component library injects
 * its CSS at run time.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

export function registerSecurityHeaders(app: FastifyInstance, config: Config): void {
  const headers: Record<string, string> = {
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  };
  if (config.baseUrl.startsWith('https:')) {
    headers['strict-transport-security'] = 'max-age=31536000; includeSubDomains';
  }
  // Callback style: this runs on every answer, and an async hook costs a promise each time.
  // A page that brings its own policy keeps it (the form_post page: src/http/authorization-response.ts).
  app.addHook('onSend', (_request, reply, payload, done) => {
    const ownPolicy = reply.getHeader('content-security-policy');
    reply.headers(headers);
    if (ownPolicy !== undefined) reply.header('content-security-policy', ownPolicy);
    done(null, payload);
  });
}
