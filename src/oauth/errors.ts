/**
 * Typed errors. Every error a handler can answer is one of these classes; the two response conventions
 * (RFC 6749 §5.2 `{error, error_description}` and the legacy envelope `{code, msg, data}`) are produced
 * from them in exactly one place each: `src/http/responses.ts`.
 */
import { EnvelopeCode } from '../shared/envelope.js';
import type { InvalidLinkReason } from '../shared/pages.js';

/** RFC 6749 §4.1.2.1 / §5.2, RFC 6750 §3.1, RFC 7009 §2.2.1 error codes. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'invalid_token'
  | 'unsupported_token_type'
  | 'insufficient_scope'
  | 'login_required'
  | 'consent_required'
  | 'request_not_supported'
  | 'request_uri_not_supported'
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token';

/**
 * RFC 6749 §4.1.2.1, §4.2.2.1 and §5.2: `error_description` is limited to %x20-21 / %x23-5B / %x5D-7E, so no
 * `"`, no backslash, no control or non-ASCII character. Every OAuth error answer (the JSON body, the redirect URI's
 * query, the form_post page) passes its description through here; see docs/security.md. Readable
 * substitutes first (a quotation mark becomes an apostrophe, `§` the word "section"), then `?` for the rest.
 */
export function errorDescription(text: string): string {
  return text
    .replace(/"/g, "'")
    .replace(/\\/g, '/')
    .replace(/§\s?/g, 'section ')
    .replace(/…/g, '...')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/[\t\r\n]/g, ' ')
    .replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/gu, '?');
}

export abstract class OAuthError extends Error {
  abstract readonly error: OAuthErrorCode;
  abstract readonly status: number;
  /** The envelope's `code` when a legacy endpoint answers this error (docs/interface.md#the-envelope). */
  abstract readonly envelopeCode: EnvelopeCode;
  /**
   * Whether the authorization endpoint may send this error to the client's redirect URI (node-oidc-provider's
   * `allow_redirect`). RFC 6749 §4.1.2.1: not while the client or its redirect URI is in doubt.
   */
  readonly allowRedirect: boolean = true;
  /** Set when the client authenticated with HTTP Basic, so a 401 carries `WWW-Authenticate: Basic`. */
  usedBasicAuth = false;

  constructor(readonly description: string) {
    super(description);
  }

  override get name(): string {
    return this.constructor.name;
  }
}

export class InvalidRequest extends OAuthError {
  readonly error = 'invalid_request';
  readonly status = 400;
  readonly envelopeCode = EnvelopeCode.InvalidRequest;
}

export class InvalidClient extends OAuthError {
  readonly error = 'invalid_client';
  readonly status = 401;
  readonly envelopeCode = EnvelopeCode.InvalidClientOrGrant;
}

export class InvalidGrant extends OAuthError {
  readonly error = 'invalid_grant';
  readonly status = 400;
  readonly envelopeCode = EnvelopeCode.InvalidClientOrGrant;
}

export class UnauthorizedClient extends OAuthError {
  readonly error = 'unauthorized_client';
  readonly status = 400;
  readonly envelopeCode = EnvelopeCode.InvalidClientOrGrant;
}

export class UnsupportedGrantType extends OAuthError {
  readonly error = 'unsupported_grant_type';
  readonly status = 400;
  readonly envelopeCode = EnvelopeCode.InvalidRequest;
}

export class InvalidScope extends OAuthError {
  readonly error = 'invalid_scope';
  readonly status = 400;
  readonly envelopeCode = EnvelopeCode.InvalidRequest;
}

export class AccessDenied extends OAuthError {
  readonly error = 'access_denied';
  readonly status = 403;
  readonly envelopeCode = EnvelopeCode.InvalidClientOrGrant;
}

export class UnsupportedResponseType extends OAuthError {
  readonly error = 'unsupported_response_type';
  readonly status = 400;
  readonly envelopeCode = EnvelopeCode.InvalidRequest;
}

/** RFC 6750 §3.1: the bearer token is missing (no `error` attribute) or invalid (`invalid_token`). */
export class InvalidToken extends OAuthError {
  readonly error = 'invalid_token';
  readonly status = 401;
  readonly envelopeCode = EnvelopeCode.NotSignedIn;
  /** RFC 6750 §3.1: a request without any authentication information carries no error code. */
  constructor(
    description: string,
    readonly missing = false,
  ) {
    super(description);
  }
}

/** RFC 6750 §3.1 insufficient_scope: the token is good but was not issued for this resource. */
export class InsufficientScope extends OAuthError {
  readonly error = 'insufficient_scope';
  readonly status = 403;
  readonly envelopeCode = EnvelopeCode.NotSignedIn;
}

/** OIDC Core §3.1.2.6: `prompt=none`, but the user must sign in (again). */
export class LoginRequired extends OAuthError {
  readonly error = 'login_required';
  readonly status = 400;
  readonly envelopeCode = EnvelopeCode.InvalidClientOrGrant;
}

/** OIDC Core §3.1.2.6: `prompt=none`, but the user has not consented to what the app asks for. */
export class ConsentRequired extends OAuthError {
  readonly error = 'consent_required';
  readonly status = 400;
  readonly envelopeCode = EnvelopeCode.InvalidClientOrGrant;
}

/** OIDC Core §3.1.2.6 / §6: request objects (`request`) are not supported here. */
export class RequestNotSupported extends OAuthError {
  readonly error = 'request_not_supported';
  readonly status = 400;
  readonly envelopeCode = EnvelopeCode.InvalidRequest;
}

/** OIDC Core §3.1.2.6 / §6.2: request objects by reference (`request_uri`) are not supported here. */
export class RequestUriNotSupported extends OAuthError {
  readonly error = 'request_uri_not_supported';
  readonly status = 400;
  readonly envelopeCode = EnvelopeCode.InvalidRequest;
}

/**
 * The authorization request named an unknown or disabled client, or a redirect URI that is not registered.
 * RFC 6749 §4.1.2.1: the authorization server "MUST NOT automatically redirect the user-agent to the invalid
 * redirection URI", so the error is shown to the user instead (envelope code 3, with `msg` the description
 * alone).
 */
export class InvalidClientOrRedirect extends OAuthError {
  readonly error = 'invalid_request';
  readonly status = 400;
  readonly envelopeCode = EnvelopeCode.InvalidClientOrRedirect;
  override readonly allowRedirect = false;

  constructor(
    description: string,
    /** Which of the three causes, for the page (the envelope's `data.reason`). */
    readonly reason: InvalidLinkReason,
    /** The app's name when the client exists (the envelope's `data.name`). */
    readonly appName?: string,
  ) {
    super(description);
  }

  /** The envelope's `data`: the page says which cause, and names the app when it exists. */
  get envelopeData(): { reason: InvalidLinkReason; name?: string } {
    return this.appName === undefined ? { reason: this.reason } : { reason: this.reason, name: this.appName };
  }
}

/** RFC 8628 §3.5 authorization_pending: the user has not decided yet; poll again after the interval. */
export class AuthorizationPending extends OAuthError {
  readonly error = 'authorization_pending';
  readonly status = 400;
  readonly envelopeCode = EnvelopeCode.InvalidClientOrGrant;
}

/** RFC 8628 §3.5 slow_down: polled too soon; "the interval MUST be increased by 5 seconds". */
export class SlowDown extends OAuthError {
  readonly error = 'slow_down';
  readonly status = 400;
  readonly envelopeCode = EnvelopeCode.InvalidClientOrGrant;
}

/** RFC 8628 §3.5 expired_token: "The device_code has expired". */
export class ExpiredToken extends OAuthError {
  readonly error = 'expired_token';
  readonly status = 400;
  readonly envelopeCode = EnvelopeCode.InvalidClientOrGrant;
}

/** RFC 8628 §3.5 access_denied at the token endpoint: the user denied the request (RFC 6749 §5.2: 400). */
export class DeviceAccessDenied extends OAuthError {
  readonly error = 'access_denied';
  readonly status = 400;
  readonly envelopeCode = EnvelopeCode.InvalidClientOrGrant;
}
