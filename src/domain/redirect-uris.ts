/**
 * Redirect URI rules (SPEC §1, RFC 9700 §2.1, RFC 8252 §7.3): absolute, https — or http only for loopback
 * hosts — and no fragment (RFC 6749 §3.1.2). Matching at authorization time is exact string comparison.
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export const MAX_REDIRECT_URIS = 10;

/** Answers why `uri` may not be registered, or undefined when it may. */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > 2000) return 'is longer than 2000 characters';
  if (uri.includes('#')) return 'must not contain a fragment (#)';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') {
    return LOOPBACK_HOSTS.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname)
      ? undefined
      : 'must use https (plain http only for localhost, 127.0.0.1 or [::1])';
  }
  return 'must use https';
}

/** Validates a list for registration; answers the first problem, naming the URI. */
export function redirectUrisProblem(uris: readonly string[]): string | undefined {
  if (uris.length < 1) return 'at least one redirect URI is required';
  if (uris.length > MAX_REDIRECT_URIS) return `at most ${MAX_REDIRECT_URIS} redirect URIs are allowed`;
  if (new Set(uris).size !== uris.length) return 'redirect URIs must not repeat';
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return `redirect URI "${uri}" ${problem}`;
  }
  return undefined;
}

/**
 * Appends parameters to a registered redirect URI, keeping any query it already has
 * (RFC 6749 §3.1.2: the query component must be retained when adding parameters).
 */
export function appendParameters(
  redirectUri: string,
  params: Readonly<Record<string, string | undefined>>,
): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.append(key, value);
  }
  return url.href;
}
