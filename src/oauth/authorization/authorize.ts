/**
 * The user's decision on a valid authorization request (SPEC §2.4): the URL the browser goes to next.
 */
import { mergeScopes } from '../scopes.js';
import type { AppContext } from '../../app-context.js';
import { credentialKey, newCredential } from '../credentials.js';
import { appendParameters } from '../../domain/redirect-uris.js';
import type { SessionRecord } from '../../storage/store.js';
import { AccessDenied, type OAuthError } from '../errors.js';
import type { AuthorizationParams, AuthorizationRequest, VerifiedRedirect } from './request.js';
import { RedirectableAuthorizationError, validateAuthorizationRequest } from './validate.js';

export type Decision = 'allow' | 'deny';

/**
 * RFC 6749 §4.1.2.1: the error response on the redirect URI, keeping its query (§3.1.2), with `state`
 * exactly as sent.
 */
export function errorRedirect(redirect: VerifiedRedirect, error: OAuthError): string {
  return appendParameters(redirect.redirectUri, {
    error: error.error,
    error_description: error.description,
    state: redirect.state,
  });
}

/** RFC 6749 §4.1.2: issues a code (stored under its key only) and records the user's consent. */
async function issueCode(
  ctx: AppContext,
  session: SessionRecord,
  request: AuthorizationRequest,
): Promise<string> {
  const now = ctx.clock.now();
  const code = newCredential(now);
  await ctx.store.codes.insert({
    codeHash: credentialKey(code),
    clientId: request.app.clientId,
    uin: session.uin,
    redirectUri: request.redirectUri,
    scope: request.scope,
    nonce: request.nonce,
    codeChallenge: request.pkce?.codeChallenge ?? null,
    codeChallengeMethod: request.pkce?.codeChallengeMethod ?? null,
    // OIDC Core §2 auth_time: when the user signed in, not when they clicked.
    authTime: session.createdAt,
    createdAt: now,
    // RFC 6749 §4.1.2: "A maximum authorization code lifetime of 10 minutes is RECOMMENDED."
    expiresAt: now + ctx.config.authorizationCodeTtl * 1000,
    usedAt: null,
    // OpenID Connect Back-Channel Logout 1.0 §2.1: the id_token names the session it was issued in.
    sid: session.sid,
  });
  // SPEC §2.5: a later request from this app is answered without asking again — for what the user has
  // approved so far, so the consent grows with each approval and never silently covers a wider scope.
  const previous = await ctx.store.consents.find(session.uin, request.app.clientId);
  await ctx.store.consents.upsert({
    uin: session.uin,
    clientId: request.app.clientId,
    scope: mergeScopes(previous?.scope ?? null, request.scope),
    grantedAt: now,
  });
  return code;
}

/**
 * Validates the request and applies the decision. Answers the URL for the browser (with `code`, or with
 * `error`); throws `InvalidClientOrRedirect` when no redirect is allowed.
 */
export async function decideAuthorization(
  ctx: AppContext,
  session: SessionRecord,
  params: AuthorizationParams,
  decision: Decision,
): Promise<string> {
  let request: AuthorizationRequest;
  try {
    request = await validateAuthorizationRequest(ctx, params);
  } catch (error) {
    if (error instanceof RedirectableAuthorizationError) return errorRedirect(error.redirect, error.error);
    throw error;
  }
  // RFC 6749 §4.1.2.1 access_denied: "The resource owner … denied the request."
  if (decision === 'deny') return errorRedirect(request, new AccessDenied('the user denied the request'));
  const code = await issueCode(ctx, session, request);
  // RFC 6749 §4.1.2: code, and state exactly as sent (SPEC §2.4: nothing else, for legacy clients).
  return appendParameters(request.redirectUri, { code, state: request.state });
}
