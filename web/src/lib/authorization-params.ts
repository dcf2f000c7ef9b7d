import { AUTHORIZATION_PARAMETERS } from '../../../src/shared/authorization';
import type { AuthorizationParams } from '../api';

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
  for (const name of AUTHORIZATION_PARAMETERS) {
    const value = fromHash.get(name) ?? fromQuery.get(name);
    if (value !== null) params[name] = value;
  }
  return params;
}

export function isComplete(params: Partial<AuthorizationParams>): params is AuthorizationParams {
  return Boolean(params.client_id) && Boolean(params.redirect_uri);
}

/** The profile claims the requested scopes let the app read (docs/interface.md#people-groups-and-audit). */
export type ProfileClaim = 'readName' | 'readEmail' | 'readGroups';

export function profileClaims(params: Partial<AuthorizationParams>): ProfileClaim[] {
  const scopes = (params.scope ?? '').split(' ');
  const claims = { profile: 'readName', email: 'readEmail', groups: 'readGroups' } as const;
  return (['profile', 'email', 'groups'] as const)
    .filter((scope) => scopes.includes(scope))
    .map((scope) => claims[scope]);
}

/** The app's address (the redirect URI's host), so two apps of the same name are told apart; '' if none. */
export function redirectHost(params: Partial<AuthorizationParams>): string {
  try {
    return params.redirect_uri ? new URL(params.redirect_uri).host : '';
  } catch {
    return '';
  }
}
