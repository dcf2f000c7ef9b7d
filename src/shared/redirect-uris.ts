/**
 * Redirect URI registration rules (docs/interface.md#resources, RFC 9700 §2.1, RFC 8252 §7.3): absolute,
 * https — or http only for loopback hosts — with no fragment (RFC 6749 §3.1.2), no credentials, backslash or
 * whitespace. Matching at authorization time is exact string comparison, so a URI is registered only in its
 * canonical form (the WHATWG URL serialization, which is also what a browser follows): a form that parses to
 * something else (`https:/\evil.example` is `https://evil.example/`, `http://0x7f000001/` is
 * `http://127.0.0.1/`) is refused. Dependency-free: the server words each problem in English, the pages in
 * the reader's language.
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export const MAX_REDIRECT_URIS = 10;
export const MAX_REDIRECT_URI_LENGTH = 2000;

/** Why one redirect URI may not be registered. */
export type RedirectUriProblem =
  | 'tooLong'
  | 'whitespace'
  | 'backslash'
  | 'fragment'
  | 'notAbsolute'
  | 'credentials'
  | 'httpNotLoopback'
  | 'otherScheme'
  | 'notCanonical';

/** Whitespace and control characters anywhere: URL parsing would drop or encode them silently. */
// eslint-disable-next-line no-control-regex
const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/u;

/** Answers why `uri` may not be registered, as a problem code, or undefined when it may. */
export function redirectUriProblemCode(uri: string): RedirectUriProblem | undefined {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return 'tooLong';
  if (WHITESPACE_OR_CONTROL.test(uri)) return 'whitespace';
  if (uri.includes('\\')) return 'backslash';
  if (uri.includes('#')) return 'fragment';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'notAbsolute';
  }
  if (url.username !== '' || url.password !== '') return 'credentials';
  if (url.protocol === 'http:') {
    // RFC 8252 §7.3: loopback redirect URIs may use plain http.
    if (!LOOPBACK_HOSTS.has(url.hostname) && !/^127\.\d+\.\d+\.\d+$/.test(url.hostname)) {
      return 'httpNotLoopback';
    }
  } else if (url.protocol !== 'https:') {
    return 'otherScheme';
  }
  if (url.href !== uri) return 'notCanonical';
  return undefined;
}

/** The canonical (WHATWG URL) form of `uri`, to suggest instead; undefined when it does not parse. */
export function canonicalRedirectUri(uri: string): string | undefined {
  try {
    return new URL(uri).href;
  } catch {
    return undefined;
  }
}
