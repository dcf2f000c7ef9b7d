/**
 * Scope lists as RFC 6749 §3.3 writes them, and how a consent grows with them: rules the OAuth endpoints and
 * the domain (a device approval records a consent) share. Dependency-free.
 */

/** RFC 6749 §3.3: the scope is a list of space-delimited, case-sensitive strings. */
export function scopeTokens(scope: string | null | undefined): string[] {
  return scope ? scope.split(' ').filter((token) => token !== '') : [];
}

/** Whether a consent given for `consented` covers a request for `requested` (every value already granted). */
export function consentCovers(consented: string | null, requested: string | null): boolean {
  const granted = new Set(scopeTokens(consented));
  return scopeTokens(requested).every((token) => granted.has(token));
}

/** The union of two scopes, for a consent that grows as an app asks for more. */
export function mergeScopes(a: string | null, b: string | null): string | null {
  const merged = [...new Set([...scopeTokens(a), ...scopeTokens(b)])];
  return merged.length === 0 ? null : merged.join(' ');
}
