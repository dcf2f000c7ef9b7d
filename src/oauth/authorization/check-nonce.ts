import { present } from '../parameters.js';
import type { AuthorizationParams } from './request.js';

/** OIDC Core §3.1.2.1: nonce is optional in the code flow; when sent it is copied into the id_token. */
export function checkNonce(params: AuthorizationParams): string | null {
  return present(params.nonce) ?? null;
}
