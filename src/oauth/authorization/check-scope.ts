import { present } from '../parameters.js';
import { grantedScope } from '../scopes.js';
import type { AuthorizationParams } from './request.js';

/**
 * RFC 6749 §3.3: the scope the code will carry. Legacy clients send none (null). Unknown values are left out;
 * malformed ones, or a request with nothing supported, are invalid_scope (see `grantedScope`).
 */
export function checkScope(params: AuthorizationParams): string | null {
  return grantedScope(present(params.scope));
}
