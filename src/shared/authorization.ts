/**
 * The authorization request's parameters campus-sso reads (RFC 6749 §4.1.1, OIDC Core §3.1.2.1, RFC 7636
 * §4.3, OAuth 2.0 Multiple Response Type Encoding Practices §2.1 `response_mode`), shared by the server and the page (docs/interface.md#authorization-page). `request` and
 * `request_uri` are not supported; they are read so that they are refused instead of silently dropped.
 */
export const AUTHORIZATION_PARAMETERS = [
  'client_id',
  'redirect_uri',
  'state',
  'response_type',
  'response_mode',
  'scope',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'prompt',
  'max_age',
  'request',
  'request_uri',
] as const;

/**
 * The longest `nonce` (copied into the id_token) and `state` (echoed on the redirect) an authorization request
 * may carry (docs/interface.md#authorization-page), on every path: the GET and form POST requests and the
 * page's call (src/oauth/authorization/check-nonce.ts, check-state.ts).
 */
export const MAX_NONCE_LENGTH = 1024;
export const MAX_STATE_LENGTH = 2048;
