/**
 * The rules of an app's service account (RFC 6749 §4.4; docs/interface.md#service-accounts-client-credentials),
 * one place for every path that sets them (admin API, command line): AppService enforces them.
 */

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** The scopes of campus-sso's own admin API that a service token may carry (docs/interface.md#admin-api). */
export const ADMIN_API_SCOPES = ['admin:users:read', 'admin:users:write', 'admin:audit:read'] as const;

/** At most this many allowed scopes, each at most this long: a list an admin reads, not a data store. */
export const MAX_ALLOWED_SCOPES = 32;
export const MAX_SCOPE_LENGTH = 64;

/**
 * Scopes that are about a user (OpenID Connect Core §3.1.2.1 `openid`, §11 `offline_access`, and the profile
 * claims' scopes): a token without a user can never carry them.
 */
const USER_SCOPES: ReadonlySet<string> = new Set(['openid', 'offline_access', 'profile', 'email', 'groups']);

/** Why `scopes` cannot be an app's allowed_scopes, or undefined. */
export function allowedScopesProblem(scopes: readonly string[]): string | undefined {
  if (scopes.length > MAX_ALLOWED_SCOPES)
    return `allowed_scopes may name at most ${MAX_ALLOWED_SCOPES} scopes`;
  for (const scope of scopes) {
    if (scope.length > MAX_SCOPE_LENGTH) {
      return `each of allowed_scopes must be at most ${MAX_SCOPE_LENGTH} characters`;
    }
    if (!SCOPE_TOKEN.test(scope)) {
      return 'each of allowed_scopes must be a scope token (RFC 6749 section 3.3: printable ASCII without spaces, quotation marks or backslashes)';
    }
    if (USER_SCOPES.has(scope)) {
      return `allowed_scopes cannot name ${scope}: a client_credentials token has no user`;
    }
  }
  return undefined;
}

/** The list as stored: each scope once, in the order given. */
export const normalizedAllowedScopes = (scopes: readonly string[]): string[] => [...new Set(scopes)];

/** Whether `next` drops a scope `previous` allowed (the app's outstanding service tokens are then revoked). */
export function narrowsScopes(previous: readonly string[], next: readonly string[]): boolean {
  const kept = new Set(next);
  return previous.some((scope) => !kept.has(scope));
}
