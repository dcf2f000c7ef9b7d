/**
 * Redirect URI registration in words (the rules themselves are shared with the pages: src/shared/redirect-uris.ts),
 * in the server's words, and the parameters appended at authorization time.
 */
import {
  MAX_REDIRECT_URIS,
  MAX_REDIRECT_URI_LENGTH,
  type RedirectUriProblem,
  canonicalRedirectUri,
  redirectUriProblemCode as redirectUriRule,
} from '../shared/redirect-uris.js';

export { MAX_REDIRECT_URIS };

const PROBLEM_MESSAGES: Readonly<Record<RedirectUriProblem, string>> = {
  tooLong: `is longer than ${MAX_REDIRECT_URI_LENGTH} characters`,
  whitespace: 'must not contain spaces, line breaks or other whitespace',
  backslash: 'must not contain a backslash (\\)',
  fragment: 'must not contain a fragment (#)',
  notAbsolute: 'is not an absolute URI',
  credentials: 'must not contain a user name or password (user:pass@)',
  httpNotLoopback: 'must use https (plain http only for localhost, 127.0.0.1 or [::1])',
  otherScheme: 'must use https',
  notCanonical: 'is not in canonical form',
};

/** Answers why `uri` may not be registered, as an English message, or undefined when it may. */
export function redirectUriProblemMessage(uri: string): string | undefined {
  const problem = redirectUriRule(uri);
  if (problem === 'notCanonical')
    return `${PROBLEM_MESSAGES[problem]}; write it as ${canonicalRedirectUri(uri) ?? ''}`;
  return problem && PROBLEM_MESSAGES[problem];
}

/**
 * Validates a list for registration; answers the first problem as an English message naming the URI. An app that only uses the
 * device grant (`deviceOnly`: docs/interface.md#device-authorization-grant) never redirects, so it may have none.
 */
export function redirectUriListProblemMessage(
  uris: readonly string[],
  deviceOnly = false,
): string | undefined {
  if (uris.length < 1 && !deviceOnly) {
    return 'at least one redirect URI is required (an app with device_grant, cas_services or client_credentials may have none)';
  }
  if (uris.length > MAX_REDIRECT_URIS) return `at most ${MAX_REDIRECT_URIS} redirect URIs are allowed`;
  if (new Set(uris).size !== uris.length) return 'redirect URIs must not repeat';
  for (const uri of uris) {
    const problem = redirectUriProblemMessage(uri);
    if (problem) return `redirect URI ${JSON.stringify(uri)} ${problem}`;
  }
  return undefined;
}

/**
 * Validates post-logout redirect URIs (OpenID Connect RP-Initiated Logout 1.0 §3): the redirect URI rules,
 * but none at all is fine.
 */
export function postLogoutRedirectUrisProblem(uris: readonly string[]): string | undefined {
  if (uris.length > MAX_REDIRECT_URIS)
    return `at most ${MAX_REDIRECT_URIS} post-logout redirect URIs are allowed`;
  if (new Set(uris).size !== uris.length) return 'post-logout redirect URIs must not repeat';
  for (const uri of uris) {
    const problem = redirectUriProblemMessage(uri);
    if (problem) return `post-logout redirect URI "${uri}" ${problem}`;
  }
  return undefined;
}

/** OpenID Connect Back-Channel Logout 1.0 §2.2: an absolute https URI (http for loopback), no fragment. */
export function backchannelLogoutUriProblem(uri: string): string | undefined {
  const problem = redirectUriProblemMessage(uri);
  return problem && `backchannel_logout_uri "${uri}" ${problem}`;
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
