import { MAX_NONCE_LENGTH } from '../../shared/authorization.js';
import { InvalidRequest } from '../errors.js';
import { present } from '../parameters.js';
import type { AuthorizationParams } from './request.js';

/**
 * OIDC Core §3.1.2.1: nonce is optional in the code flow; when sent it is copied into the id_token, so its
 * length is bounded (docs/interface.md#authorization-page), on every path that reaches this pipeline.
 */
export function checkNonce(params: AuthorizationParams): string | null {
  const nonce = present(params.nonce) ?? null;
  if (nonce !== null && nonce.length > MAX_NONCE_LENGTH) {
    throw new InvalidRequest(`nonce must be at most ${MAX_NONCE_LENGTH} characters`);
  }
  return nonce;
}
