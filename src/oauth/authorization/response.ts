/**
 * The authorization response (RFC 6749 §4.1.2, §4.1.2.1) as data: where it goes, how, and which parameters it
 * carries. It becomes a redirect (`query`) or an auto-submitting form (`form_post`) only where it is sent
 * (src/http/authorization-response.ts), so every path that answers the client — the GET endpoint, prompt=none,
 * the page's call — delivers it the way the client asked (docs/interface.md#response-modes).
 */
import type { AppContext } from '../../app-context.js';
import { appendParameters } from '../../domain/redirect-uris.js';
import { errorDescription, type OAuthError } from '../errors.js';
import type { ResponseMode, VerifiedRedirect } from './request.js';

export interface AuthorizationResponse {
  /** A registered redirect URI of the client (verified before any response is built). */
  readonly redirectUri: string;
  readonly responseMode: ResponseMode;
  /** In order; `undefined` values are left out. */
  readonly parameters: Readonly<Record<string, string | undefined>>;
}

/**
 * RFC 6749 §4.1.2: the code, `state` exactly as sent, and RFC 9207 §2 `iss`, so the client can tell which
 * authorization server answered (the mix-up defence of RFC 9700 §4.4).
 */
export function codeResponse(
  ctx: AppContext,
  redirect: VerifiedRedirect,
  code: string,
): AuthorizationResponse {
  return {
    redirectUri: redirect.redirectUri,
    responseMode: redirect.responseMode,
    parameters: { code, state: redirect.state, iss: ctx.config.issuer },
  };
}

/**
 * RFC 6749 §4.1.2.1: the error response, with `state` exactly as sent and RFC 9207 §2 `iss`; the description
 * in RFC 6749's character set (docs/security.md).
 */
export function errorResponse(
  ctx: AppContext,
  redirect: VerifiedRedirect,
  error: OAuthError,
): AuthorizationResponse {
  return {
    redirectUri: redirect.redirectUri,
    responseMode: redirect.responseMode,
    parameters: {
      error: error.error,
      error_description: errorDescription(error.description),
      state: redirect.state,
      iss: ctx.config.issuer,
    },
  };
}

/** The `query` response: the parameters appended to the redirect URI, keeping its query (RFC 6749 §3.1.2). */
export function responseUrl(response: AuthorizationResponse): string {
  return appendParameters(response.redirectUri, response.parameters);
}

/** The parameters that are sent, in order. */
export function sentParameters(response: AuthorizationResponse): [string, string][] {
  return Object.entries(response.parameters).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  );
}
