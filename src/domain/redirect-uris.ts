/**
 * Redirect URI rules (docs/interface.md#resources, RFC 9700 §2.1, RFC 8252 §7.3): absolute, https — or http
 * only for loopback hosts — and no fragment (RFC 6749 §3.1.2). Matching at authorization time is exact string
 * comparison, so a URI is registered only in its canonical form (the WHATWG URL serialization, which is also
 * what a browser follows): a form that parses to something else (`https:/\evil.example` is
 * `https://evil.example/`, `http://0x7f000001/` is `http://127.0.0.1/`) is refused, saying the canonical form.
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export const MAX_REDIRECT_URIS = 10;

/** Whitespace and control characters anywhere: URL parsing would drop or encode them silently. */
// eslint-disable-next-line no-control-regex
const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/u;

/** Answers why `uri` may not be registered, or undefined when it may. */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > 2000) return 'is longer than 2000 characters';
  if (WHITESPACE_OR_CONTROL.test(uri)) return 'must not contain spaces, line breaks or other whitespace';
  if (uri.includes('\\')) return 'must not contain a backslash (\\)';
  if (uri.includes('#')) return 'must not contain a fragment (#)';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (url.username !== '' || url.password !== '')
    return 'must not contain a user name or password (user:pass@)';
  if (url.protocol === 'http:') {
    if (!LOOPBACK_HOSTS.has(url.hostname) && !/^127\.\d+\.\d+\.\d+$/.test(url.hostname)) {
      return 'must use https (plain http only for localhost, 127.0.0.1 or [::1])';
    }
  } else if (url.protocol !== 'https:') {
    return 'must use https';
  }
  if (url.href !== uri) return `is not in canonical form; write it as ${url.href}`;
  return undefined;
}

/** Validates a list for registration; answers the first problem, naming the URI. */
export function redirectUrisProblem(uris: readonly string[]): string | undefined {
  if (uris.length < 1) return 'at least one redirect URI is required';
  if (uris.length > MAX_REDIRECT_URIS) return `at most ${MAX_REDIRECT_URIS} redirect URIs are allowed`;
  if (new Set(uris).size !== uris.length) return 'redirect URIs must not repeat';
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return `redirect URI ${JSON.stringify(uri)} ${problem}`;
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
