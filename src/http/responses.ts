/**
 * The single place where answers are rendered. Two conventions exist (docs/interface.md#the-envelope):
 * - RFC 6749 §5.2 `{error, error_description}` for the standard OAuth endpoints;
 * - the legacy envelope `{code, msg, data}` for `/v1/account`, `/v1/admin` and the legacy endpoints.
 * Handlers return data or throw a typed error (`OAuthError`, `ApiError`); they never build error JSON.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  errorDescription,
  InsufficientScope,
  InvalidClientOrRedirect,
  InvalidToken,
  OAuthError,
} from '../oauth/errors.js';
import { NO_STORE_HEADERS } from '../oauth/tokens.js';
import { EnvelopeCode } from '../shared/envelope.js';
import { isDatabaseUnavailable } from '../storage/database-errors.js';
import { RuleViolation } from '../domain/rule-violation.js';
import { ApiError, badRequest } from './api-error.js';

/**
 * - `oauth`: RFC 6749 §5.2 / RFC 6750 JSON (`/v1/oauth2/token`, `revoke`, `introspect`, `userinfo`);
 * - `legacy`: the envelope with `msg` starting with the RFC error code (`get-access-token`, `get-user-info`);
 * - `envelope`: the envelope with a plain message (`/v1/account`, `/v1/admin`, the page's calls).
 */
export type ErrorStyle = 'oauth' | 'legacy' | 'envelope';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How this route renders errors; `envelope` when absent. */
    errorStyle?: ErrorStyle;
    /**
     * State-changing browser call: Origin and content type are checked (CSRF). `json-only`: only a JSON body
     * is the page's call; a form body is a standard request served without the session (the authorization
     * endpoint, OIDC Core §3.1.2.1).
     */
    csrf?: boolean | 'json-only';
  }
}

export interface Envelope<T> {
  readonly code: EnvelopeCode;
  readonly msg: string;
  readonly data: T;
}

/** A success: its `code` and `msg` are always these (the routes' response schemas say so too). */
export interface OkEnvelope<T> extends Envelope<T> {
  readonly code: typeof EnvelopeCode.Ok;
  readonly msg: 'ok';
}

export function ok<T>(data: T): OkEnvelope<T> {
  return { code: EnvelopeCode.Ok, msg: 'ok', data };
}

const REALM = 'realm="campus-sso"';

/** RFC 6750 §3: the WWW-Authenticate challenge for a bearer-token failure. */
function bearerChallenge(error: InvalidToken | InsufficientScope): string {
  if (error instanceof InsufficientScope) return `Bearer ${REALM}, error="insufficient_scope"`;
  // Exactly the docs/interface.md#legacy-user-information header values: existing clients may compare them.
  return error.missing ? `Bearer ${REALM}` : `Bearer ${REALM}, error="invalid_token"`;
}

interface Rendered {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;
}

function renderOAuthError(error: OAuthError, style: ErrorStyle): Rendered {
  const headers: Record<string, string> = {};
  if (error instanceof InvalidToken || error instanceof InsufficientScope) {
    headers['www-authenticate'] = bearerChallenge(error);
  } else if (error.status === 401 && error.usedBasicAuth) {
    // RFC 6749 §5.2: invalid_client with Basic auth answers 401 and a Basic challenge.
    headers['www-authenticate'] = `Basic ${REALM}`;
  }
  if (style === 'envelope') {
    // The page's calls (an unknown client or redirect URI on the consent page): the description alone.
    return {
      status: error.status,
      body: {
        code: error.envelopeCode,
        msg: error.description,
        data: error instanceof InvalidClientOrRedirect ? error.envelopeData : {},
      },
      headers,
    };
  }
  // RFC 6749 §5.1: answers carrying tokens or token errors must not be cached.
  Object.assign(headers, NO_STORE_HEADERS);
  if (style === 'oauth') {
    const body: Record<string, string> = {
      error: error.error,
      error_description: errorDescription(error.description),
    };
    // RFC 6749 §5.2 permits 401 only for invalid_client; without Basic auth the RFC lets us answer 400 or 401.
    return { status: error.status, body, headers };
  }
  // The legacy envelope: `msg` starts with the RFC error code (docs/interface.md#legacy-token-endpoint,
  // docs/interface.md#legacy-user-information).
  const msg = error instanceof InvalidToken ? error.description : `${error.error}: ${error.description}`;
  return { status: error.status, body: { code: error.envelopeCode, msg, data: {} }, headers };
}

interface ValidationParams {
  readonly missingProperty?: string;
  readonly additionalProperty?: string;
  readonly allowedValues?: readonly unknown[];
  readonly pattern?: string;
}

/** A schema failure in words a person can act on: which field, and what it should be. */
function validationMessage(error: FastifyError): string {
  const first = error.validation?.[0];
  const params = (first?.params ?? {}) as ValidationParams;
  const path = first?.instancePath ? first.instancePath.slice(1).replace(/\//g, '.') : '';
  const field =
    [path, params.missingProperty ?? params.additionalProperty].filter(Boolean).join('.') ||
    (error.validationContext === 'body' ? 'request body' : '');
  let detail: string;
  if (params.missingProperty) detail = 'is required';
  else if (params.additionalProperty) detail = 'is not a known field';
  else if (params.allowedValues) detail = `must be one of: ${params.allowedValues.map(String).join(', ')}`;
  else if (params.pattern) detail = 'has an invalid format';
  else detail = first?.message ?? 'is invalid';
  const where =
    error.validationContext && error.validationContext !== 'body' ? `${error.validationContext} ` : '';
  return `${where}${field ? `${field} ` : ''}${detail}`.trim();
}

function renderFastifyError(error: FastifyError): { status: number; message: string } {
  if (error.validation) {
    return { status: 400, message: validationMessage(error) };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: 'request body is too large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: 'unsupported content type' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, message: 'invalid content length' };
    default:
      break;
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return { status, message: error.message };
  return { status: 500, message: 'internal error' };
}

/** Seconds a client is asked to wait before retrying while the database is unavailable. */
export const RETRY_AFTER_UNAVAILABLE_S = 5;

/**
 * The database is unavailable (docs/operations.md#when-the-database-is-unavailable): 503 with `Retry-After`
 * (RFC 9110 §15.6.4, §10.2.3), so clients and load balancers retry instead of reporting a bug. The OAuth
 * endpoints answer `temporarily_unavailable` (RFC 6749 §4.1.2.1), the envelope code 99.
 */
function renderUnavailable(style: ErrorStyle): Rendered {
  const retry = { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_S) };
  const description = 'the service is temporarily unavailable; try again in a few seconds';
  if (style === 'oauth') {
    return {
      status: 503,
      body: { error: 'temporarily_unavailable', error_description: description },
      headers: { ...NO_STORE_HEADERS, ...retry },
    };
  }
  const msg = style === 'legacy' ? `temporarily_unavailable: ${description}` : description;
  const headers = style === 'legacy' ? { ...NO_STORE_HEADERS, ...retry } : retry;
  return { status: 503, body: { code: EnvelopeCode.Internal, msg, data: {} }, headers };
}

/** Renders any thrown error in the convention of the route it came from. */
export function render(error: unknown, style: ErrorStyle): Rendered {
  if (isDatabaseUnavailable(error)) return renderUnavailable(style);
  if (error instanceof OAuthError) return renderOAuthError(error, style);
  // A domain rule refused a value that the route's schema let through: the same answer as the route's own check.
  if (error instanceof RuleViolation) return render(badRequest(error.message), style);
  if (error instanceof ApiError) {
    return {
      status: error.status,
      body: { code: error.envelopeCode, msg: error.message, data: error.data },
      headers: { ...error.headers },
    };
  }
  const { status, message } = renderFastifyError(error as FastifyError);
  const rfcCode = status >= 500 ? 'server_error' : 'invalid_request';
  if (style === 'oauth') {
    return {
      status,
      body: { error: rfcCode, error_description: errorDescription(message) },
      headers: { ...NO_STORE_HEADERS },
    };
  }
  if (style === 'legacy') {
    // Token and user-information answers are never cached, errors included (RFC 6749 §5.1).
    return {
      status,
      body: { code: fallbackCode(status), msg: `${rfcCode}: ${message}`, data: {} },
      headers: { ...NO_STORE_HEADERS },
    };
  }
  return {
    status,
    body: { code: ENVELOPE_CODES[status] ?? fallbackCode(status), msg: message, data: {} },
    headers: {},
  };
}

/** Envelope codes for statuses that Fastify itself may answer (docs/interface.md#the-envelope). */
const ENVELOPE_CODES: Readonly<Record<number, EnvelopeCode>> = {
  401: EnvelopeCode.NotSignedIn,
  403: EnvelopeCode.Forbidden,
  404: EnvelopeCode.NotFound,
  409: EnvelopeCode.Conflict,
  429: EnvelopeCode.Throttled,
};

function fallbackCode(status: number): EnvelopeCode {
  return status >= 500 ? EnvelopeCode.Internal : EnvelopeCode.InvalidRequest;
}

export function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const style = request.routeOptions.config.errorStyle ?? 'envelope';
  const rendered = render(error, style);
  if (rendered.status === 503 && isDatabaseUnavailable(error)) {
    // Logged once per outage, then counted (database-outage.ts), never a stack trace per request.
    request.server.databaseOutage.refused(error);
  } else if (rendered.status >= 500) {
    request.log.error({ err: error }, 'request failed');
  }
  void reply.code(rendered.status).headers(rendered.headers).send(rendered.body);
}
