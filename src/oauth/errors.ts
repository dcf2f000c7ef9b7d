/**
 * Typed errors. Every error a handler can answer is one of these classes; the two response conventions
 * (RFC 6749 §5.2 `{error, error_description}` and the legacy envelope `{code, msg, data}`) are produced
 * from them in exactly one place each: `src/http/responses.ts`.
 */

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
  | 'request_uri_not_supported';

export abstract class OAuthError extends Error {
  abstract readonly error: OAuthErrorCode;
  abstract readonly status: number;
  /** Legacy envelope code (SPEC §4): 1 malformed request, 2 client or grant, -1 bad token. */
  abstract readonly legacyCode: number;
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
  readonly legacyCode = 1;
}

export class InvalidClient extends OAuthError {
  readonly error = 'invalid_client';
  readonly status = 401;
  readonly legacyCode = 2;
}

export class InvalidGrant extends OAuthError {
  readonly error = 'invalid_grant';
  readonly status = 400;
  readonly legacyCode = 2;
}

export class UnauthorizedClient extends OAuthError {
  readonly error = 'unauthorized_client';
  readonly status = 400;
  readonly legacyCode = 2;
}

export class UnsupportedGrantType extends OAuthError {
  readonly error = 'unsupported_grant_type';
  readonly status = 400;
  readonly legacyCode = 1;
}

export class InvalidScope extends OAuthError {
  readonly error = 'invalid_scope';
  readonly status = 400;
  readonly legacyCode = 1;
}

export class AccessDenied extends OAuthError {
  readonly error = 'access_denied';
  readonly status = 403;
  readonly legacyCode = 2;
}

export class UnsupportedResponseType extends OAuthError {
  readonly error = 'unsupported_response_type';
  readonly status = 400;
  readonly legacyCode = 1;
}

/** RFC 6750 §3.1: the bearer token is missing (no `error` attribute) or invalid (`invalid_token`). */
export class InvalidToken extends OAuthError {
  readonly error = 'invalid_token';
  readonly status = 401;
  readonly legacyCode = -1;
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
  readonly legacyCode = -1;
}

/** OIDC Core §3.1.2.6: `prompt=none`, but the user must sign in (again). */
export class LoginRequired extends OAuthError {
  readonly error = 'login_required';
  readonly status = 400;
  readonly legacyCode = 2;
}

/** OIDC Core §3.1.2.6: `prompt=none`, but the user has not consented to what the app asks for. */
export class ConsentRequired extends OAuthError {
  readonly error = 'consent_required';
  readonly status = 400;
  readonly legacyCode = 2;
}

/** OIDC Core §3.1.2.6 / §6: request objects (`request`) are not supported here. */
export class RequestNotSupported extends OAuthError {
  readonly error = 'request_not_supported';
  readonly status = 400;
  readonly legacyCode = 1;
}

/** OIDC Core §3.1.2.6 / §6.2: request objects by reference (`request_uri`) are not supported here. */
export class RequestUriNotSupported extends OAuthError {
  readonly error = 'request_uri_not_supported';
  readonly status = 400;
  readonly legacyCode = 1;
}

/**
 * The authorization request named an unknown or disabled client, or a redirect URI that is not registered:
 * RFC 6749 §4.1.2.1 forbids redirecting, so the error is shown to the user instead (envelope code 3).
 */
export class InvalidClientOrRedirect extends Error {
  override readonly name = 'InvalidClientOrRedirect';
  readonly status = 400;
  readonly envelopeCode = 3;
  constructor(readonly description: string) {
    super(description);
  }
}
