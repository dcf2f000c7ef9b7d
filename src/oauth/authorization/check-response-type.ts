import { UnsupportedResponseType } from '../errors.js';
import { present } from '../parameters.js';
import type { AuthorizationParams } from './request.js';

/**
 * RFC 6749 §3.1.1 / §4.1.1: only the authorization-code flow (`response_type=code`) exists here. Legacy
 * clients (SPEC §2) never send response_type, so an absent one means `code`.
 */
export function checkResponseType(params: AuthorizationParams): void {
  const responseType = present(params.response_type);
  // RFC 6749 §4.1.2.1 unsupported_response_type.
  if (responseType !== undefined && responseType !== 'code') {
    throw new UnsupportedResponseType(`response_type "${responseType}" is not supported; use "code"`);
  }
}
