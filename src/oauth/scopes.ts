import { InvalidScope } from './errors.js';
import { scopeTokens } from '../shared/scopes.js';

// The scope rules the domain shares (consents), kept where both reach them.
export { consentCovers, mergeScopes, scopeTokens } from '../shared/scopes.js';

/**
 * The scopes campus-sso understands (docs/interface.md#openid-connect,
 * docs/interface.md#people-groups-and-audit): OpenID Connect, its profile claims, refresh tokens.
 */
export const SUPPORTED_SCOPES = ['openid', 'profile', 'email', 'groups', 'offline_access'] as const;
export type Scope = (typeof SUPPORTED_SCOPES)[number];

const SUPPORTED: ReadonlySet<string> = new Set(SUPPORTED_SCOPES);

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

export function hasScope(scope: string | null | undefined, wanted: Scope): boolean {
  return scopeTokens(scope).includes(wanted);
}

/**
 * Parses a requested scope into the granted one: malformed tokens are refused, supported ones kept in the
 * order asked (without repeats), and ones campus-sso does not know are left out (RFC 6749 §3.3 lets the
 * server grant less than asked; OpenID Connect Core §3.1.2.1 says unknown scope values SHOULD be ignored).
 * Answers null when no scope was requested.
 */
export function grantedScope(requested: string | undefined): string | null {
  if (requested === undefined) return null;
  const tokens = scopeTokens(requested);
  // RFC 6749 §3.3: each scope-token is printable ASCII without space, '"' or '\'.
  const malformed = tokens.find((token) => !SCOPE_TOKEN.test(token));
  if (malformed !== undefined)
    throw new InvalidScope('the scope contains a character RFC 6749 section 3.3 does not allow');
  const granted = [...new Set(tokens.filter((token) => SUPPORTED.has(token)))];
  // RFC 6749 §4.1.2.1 invalid_scope: nothing that was requested can be granted.
  if (granted.length === 0) {
    throw new InvalidScope(
      `none of the requested scopes is supported (supported: ${SUPPORTED_SCOPES.join(' ')})`,
    );
  }
  return granted.join(' ');
}
