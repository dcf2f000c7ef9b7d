/**
 * How each route becomes an operation of the OpenAPI document (docs/interface.md#openapi): the route's own
 * schemas (request and responses, declared beside its handler) plus what the route's options already say —
 * its error convention (`config.errorStyle`, rendered in one place by ../responses.ts), whether it is
 * CSRF-checked (`config.csrf`) — and the security its path or its schema declares (./security.ts).
 */
import type { FastifySchema, RouteOptions } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { ErrorEnvelope, OAuthErrorBody } from '../response-schemas.js';
import type { ErrorStyle } from '../responses.js';
import { BEARER, type SecurityRequirements, adminSecurity, operationSecurity } from './security.js';

/** The paths the document covers: the API, the CAS protocol and discovery; not the pages or operations. */
export function isDocumentedPath(url: string): boolean {
  return url.startsWith('/v1/') || url.startsWith('/cas/') || url.startsWith('/.well-known/');
}

/** The group an operation is listed under. */
function tagOf(url: string): string {
  if (url.startsWith('/v1/account/')) return 'account';
  if (url.startsWith('/v1/admin/')) return 'admin';
  if (url.startsWith('/v1/oauth2/')) return 'oauth2';
  if (url.startsWith('/cas/') || url.startsWith('/v1/cas/')) return 'cas';
  if (url.startsWith('/.well-known/')) return 'discovery';
  return 'service';
}

/** RFC 6750 §3: the challenge of a bearer-token failure. */
const BEARER_CHALLENGE = {
  'www-authenticate': {
    type: 'string',
    description: 'Bearer realm="campus-sso", with error="invalid_token" when a token was sent but is no good',
  },
};

/**
 * The errors every route of a convention may answer (4xx: bad input, credentials, refusals; 5xx: the database
 * or the directory unavailable, with `Retry-After`), unless the route declares that status itself.
 */
function conventionalErrors(style: ErrorStyle, security: SecurityRequirements): Record<string, TSchema> {
  const body = style === 'oauth' ? OAuthErrorBody : ErrorEnvelope;
  const errors: Record<string, TSchema> = { '4xx': body, '5xx': body };
  if (security === BEARER) {
    errors['401'] = { ...body, description: 'No usable access token', headers: BEARER_CHALLENGE };
  }
  return errors;
}

export interface RouteToDocument {
  readonly schema: FastifySchema | undefined;
  readonly url: string;
  readonly route: RouteOptions;
}

/** @fastify/swagger's `transform`: the route's schema as its operation. */
export function documentRoute({ schema = {}, url, route }: RouteToDocument): {
  schema: FastifySchema;
  url: string;
} {
  if (!isDocumentedPath(url)) return { schema: { ...schema, hide: true }, url };
  const config = route.config ?? {};
  const security = config.permission
    ? adminSecurity(config.permission)
    : operationSecurity({ url, declared: schema.security });
  const declared = (schema.response ?? {}) as Record<string, unknown>;
  return {
    url,
    schema: {
      ...schema,
      tags: schema.tags ?? [tagOf(url)],
      security,
      response: { ...conventionalErrors(config.errorStyle ?? 'envelope', security), ...declared },
      ...(config.csrf !== undefined && config.csrf !== false && { 'x-csrf': config.csrf }),
    },
  };
}
