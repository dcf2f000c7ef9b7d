/**
 * The profile claims a token's scope releases (OIDC Core §5.4), the same in the id_token and at the UserInfo
 * endpoint (docs/interface.md#people-groups-and-audit): `profile` → `name` (when set) and `preferred_username`
 * (the uin as a string); `email` → `email` and `email_verified` (false: campus-sso never verifies addresses),
 * when an address is set; `groups` → `groups`, the user's group tags (always an array).
 */
import type { UserProfile } from '../storage/store.js';
import { scopeTokens } from './scopes.js';

export interface ProfileClaims {
  name?: string;
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  groups?: string[];
}

/** The scopes that release profile claims: a token without any of them needs no user look-up. */
export function releasesProfileClaims(scope: string | null): boolean {
  return scopeTokens(scope).some((token) => token === 'profile' || token === 'email' || token === 'groups');
}

export function profileClaims(
  user: Pick<UserProfile, 'name' | 'email' | 'groups'> & { readonly uin: number },
  scope: string | null,
): ProfileClaims {
  const granted = new Set(scopeTokens(scope));
  const claims: ProfileClaims = {};
  if (granted.has('profile')) {
    if (user.name !== null) claims.name = user.name;
    claims.preferred_username = String(user.uin);
  }
  if (granted.has('email') && user.email !== null) {
    claims.email = user.email;
    claims.email_verified = false;
  }
  if (granted.has('groups')) claims.groups = [...user.groups];
  return claims;
}
