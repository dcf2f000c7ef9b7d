import { RequestNotSupported, RequestUriNotSupported } from '../errors.js';
import { present } from '../parameters.js';
import type { AuthorizationParams } from './request.js';

/**
 * OIDC Core §6: request objects are optional to support, but ignoring one would lose the `state`, `nonce` and
 * other parameters inside it, so the request is refused with the errors of OIDC Core §3.1.2.6.
 */
export function checkRequestObject(params: AuthorizationParams): void {
  if (present(params.request) !== undefined) {
    throw new RequestNotSupported('request objects (the request parameter) are not supported');
  }
  if (present(params.request_uri) !== undefined) {
    throw new RequestUriNotSupported('request objects by reference (request_uri) are not supported');
  }
}
