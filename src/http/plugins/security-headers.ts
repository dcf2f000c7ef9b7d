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
  // Every answer: no framing, no referrer, no sniffing, no cross-origin embedding (JSON answers included:
  // a browser shown one as a page must not run or frame it).
  const headers: Record<string, string> = {
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'cross-origin-resource-policy': 'same-origin',
  };
  if (config.baseUrl.startsWith('https:')) {
    headers['strict-transport-security'] = 'max-age=31536000; includeSubDomains';
  }
  // Only a document uses these (a browsing context and its features): they go on HTML answers alone, so
  // the hot JSON answers (user information, the token endpoint) carry ~110 bytes less.
  const pageHeaders: Record<string, string> = {
    ...headers,
    'cross-origin-opener-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  };
  // Callback style: this runs on every answer, and an async hook costs a promise each time.
  // A page that brings its own policy keeps it (the form_post page: src/http/authorization-response.ts).
  app.addHook('onSend', (_request, reply, payload, done) => {
    const ownPolicy = reply.getHeader('content-security-policy');
    const type = reply.getHeader('content-type');
    reply.headers(typeof type === 'string' && type.startsWith('text/html') ? pageHeaders : headers);
    if (ownPolicy !== undefined) reply.header('content-security-policy', ownPolicy);
    done(null, payload);
  });
}
