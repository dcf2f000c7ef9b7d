/**
 * The protected-resource side of RFC 6750: the bearer token a request presents, and whose it is. Routes ask
 * here and never learn how tokens are stored.
 */
import type { AppContext } from '../app-context.js';
import type { ActiveTokenOwner } from '../storage/store.js';
import { credentialKey } from './credentials.js';
import { InvalidRequest, InvalidToken } from './errors.js';
import { findServicePrincipal } from './service-tokens.js';

/** RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token (the scheme is case-insensitive, RFC 7235 §2.1). */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The token of an `Authorization: Bearer` header. A missing or malformed header answers the bare challenge
 * `Bearer realm="campus-sso"` (RFC 6750 §3.1: no error code without usable credentials;
 * docs/interface.md#legacy-user-information).
 */
export function bearerToken(authorization: string | undefined): string {
  if (authorization === undefined)
    throw new InvalidToken('the Authorization: Bearer header is missing', true);
  const match = BEARER.exec(authorization);
  if (!match?.[1])
    throw new InvalidToken('the Authorization header is not Bearer followed by an access token', true);
  return match[1];
}

/** RFC 6750 §2.1 b64token. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * The token of a request that may carry it in the `Authorization` header (RFC 6750 §2.1) or, on a form POST,
 * as the `access_token` body parameter (§2.2). §2: "Clients MUST NOT use more than one method".
 */
export function bearerTokenOf(
  authorization: string | undefined,
  formAccessToken: string | undefined,
): string {
  if (formAccessToken === undefined) return bearerToken(authorization);
  if (authorization !== undefined) {
    throw new InvalidRequest('send the access token in the Authorization header or in the body, not both');
  }
  if (!B64TOKEN.test(formAccessToken)) throw new InvalidToken(INVALID_ACCESS_TOKEN);
  return formAccessToken;
}

export const INVALID_ACCESS_TOKEN = 'the access token is invalid, expired or revoked';

/**
 * Whose access token this is, if it is still good: unrevoked and unexpired, its user and its app enabled.
 * One storage call (the hot path of user information and introspection).
 */
export function findActiveAccessToken(ctx: AppContext, token: string): Promise<ActiveTokenOwner | undefined> {
  return ctx.store.tokens.findActiveOwner(credentialKey(token), ctx.clock.now());
}

/**
 * The owner of the request's access token, or `InvalidToken`: from the `Authorization: Bearer` header
 * (RFC 6750 §2.1) or, where the endpoint accepts it, a form body's `access_token` (§2.2).
 */
export async function requireActiveAccessToken(
  ctx: AppContext,
  authorization: string | undefined,
  formAccessToken?: string,
): Promise<ActiveTokenOwner> {
  const token = bearerTokenOf(authorization, formAccessToken);
  const owner = await findActiveAccessToken(ctx, token);
  if (owner) return owner;
  // RFC 6750 §3.1 invalid_token: "invalid for other reasons": a client_credentials token has no user to
  // answer about (docs/interface.md#service-accounts-client-credentials). Asked only on the refusal path.
  if (await findServicePrincipal(ctx, token)) {
    throw new InvalidToken(
      'this access token was issued to an app for itself (client_credentials): it has no user',
    );
  }
  // RFC 6750 §3.1 invalid_token: "expired, revoked, malformed, or invalid".
  throw new InvalidToken(INVALID_ACCESS_TOKEN);
}
