import type { AuthorizationParams } from '../api';

const NAMES = [
  'client_id',
  'redirect_uri',
  'state',
  'response_type',
  'scope',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'prompt',
  'max_age',
  // Not supported, but passed on so that the server refuses them instead of silently dropping them.
  'request',
  'request_uri',
] as const;

/**
 * docs/interface.md#authorization-page: the authorization request's parameters come from the fragment's query
 * (`/#/auth?client_id=…`) or from the real query string (`/?client_id=…#/auth`); the fragment wins when both
 * carry one. Parameters that were not sent stay absent (an empty `state` that was sent is kept, unchanged).
 */
export function readAuthorizationParams(
  location: Pick<Location, 'search' | 'hash'>,
): Partial<AuthorizationParams> {
  const fromQuery = new URLSearchParams(location.search);
  const hashQueryStart = location.hash.indexOf('?');
  const fromHash = new URLSearchParams(hashQueryStart >= 0 ? location.hash.slice(hashQueryStart + 1) : '');
  const params: Partial<AuthorizationParams> = {};
  for (const name of NAMES) {
    const value = fromHash.get(name) ?? fromQuery.get(name);
    if (value !== null) params[name] = value;
  }
  return params;
}

export function isComplete(params: Partial<AuthorizationParams>): params is AuthorizationParams {
  return Boolean(params.client_id) && Boolean(params.redirect_uri);
}
