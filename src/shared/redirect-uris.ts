/**
 * Redirect URI registration rules (docs/interface.md#resources, RFC 9700 §2.1, RFC 8252 §7.3): absolute,
 * https — or http only for loopback hosts — and no fragment (RFC 6749 §3.1.2). Matching at authorization time
 * is exact string comparison. Dependency-free: the server words each problem in English, the pages in the
 * reader's language.
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export const MAX_REDIRECT_URIS = 10;
export const MAX_REDIRECT_URI_LENGTH = 2000;

/** Why one redirect URI may not be registered. */
export type RedirectUriProblem = 'tooLong' | 'fragment' | 'notAbsolute' | 'httpNotLoopback' | 'otherScheme';

/** Answers why `uri` may not be registered, or undefined when it may. */
export function redirectUriProblem(uri: string): RedirectUriProblem | undefined {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return 'tooLong';
  if (uri.includes('#')) return 'fragment';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'notAbsolute';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') {
    // RFC 8252 §7.3: loopback redirect URIs may use plain http.
    return LOOPBACK_HOSTS.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname)
      ? undefined
      : 'httpNotLoopback';
  }
  return 'otherScheme';
}
