import { InvalidRequest, UnsupportedResponseType } from '../errors.js';
import { present } from '../parameters.js';
import { hasScope } from '../scopes.js';
import type { AuthorizationParams } from './request.js';

/**
 * RFC 6749 §3.1.1 / §4.1.1: only the authorization-code flow (`response_type=code`) exists here. Legacy
 * clients (docs/interface.md#authorization-page) never send response_type, so an absent one means `code` —
 * unless the request is an OpenID Connect one.
 */
export function checkResponseType(params: AuthorizationParams): void {
  const responseType = present(params.response_type);
  if (responseType === undefined) {
    // OIDC Core §3.1.2.1: response_type is REQUIRED in an OpenID Connect (scope openid) request.
    if (hasScope(present(params.scope), 'openid')) {
      throw new InvalidRequest('response_type is required with scope openid; use code');
    }
    return;
  }
  // RFC 6749 §4.1.2.1 unsupported_response_type.
  if (responseType !== 'code') {
    throw new UnsupportedResponseType(`response_type '${responseType}' is not supported; use code`);
  }
}
