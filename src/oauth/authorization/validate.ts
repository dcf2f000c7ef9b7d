import type { AppContext } from '../../app-context.js';
import { OAuthError } from '../errors.js';
import { checkClient } from './check-client.js';
import { checkNonce } from './check-nonce.js';
import { checkPkce } from './check-pkce.js';
import { checkMaxAge, checkPrompt } from './check-prompt.js';
import { checkRequestObject } from './check-request-object.js';
import { checkResponseMode } from './check-response-mode.js';
import { checkResponseType } from './check-response-type.js';
import { checkScope } from './check-scope.js';
import { checkState } from './check-state.js';
import type { AuthorizationParams, AuthorizationRequest, VerifiedRedirect } from './request.js';

/**
 * An error found after the client and redirect URI were verified: RFC 6749 §4.1.2.1 says it goes back to the
 * client, on its redirect URI. Carries the typed error and where to send it.
 */
export class RedirectableAuthorizationError extends Error {
  override readonly name = 'RedirectableAuthorizationError';
  constructor(
    readonly error: OAuthError,
    readonly redirect: VerifiedRedirect,
  ) {
    super(error.description);
  }
}

/**
 * The authorization request pipeline, in RFC order (the model is node-oidc-provider's
 * `actions/authorization/check_*.js`): client and redirect URI first (never redirects), then state's length,
 * response_type, response_mode, request objects, PKCE, scope, nonce, prompt and max_age.
 */
export async function validateAuthorizationRequest(
  ctx: AppContext,
  params: AuthorizationParams,
): Promise<AuthorizationRequest> {
  const redirect = await checkClient(ctx, params);
  try {
    checkState(params);
    checkResponseType(params);
    checkResponseMode(params);
    checkRequestObject(params);
    const pkce = checkPkce(params);
    const scope = checkScope(params);
    const nonce = checkNonce(params);
    const prompt = checkPrompt(params);
    const maxAge = checkMaxAge(params);
    return { ...redirect, scope, nonce, pkce, prompt, maxAge };
  } catch (error) {
    if (error instanceof OAuthError && error.allowRedirect)
      throw new RedirectableAuthorizationError(error, redirect);
    throw error;
  }
}
