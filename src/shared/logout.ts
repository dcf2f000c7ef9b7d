/**
 * OpenID Connect RP-Initiated Logout 1.0 §2 (docs/interface.md#sessions-and-sign-out): the one list of the
 * parameters campus-sso reads, shared by the end_session_endpoint (GET and form POST), the `#/logout` page and
 * the page's `POST /v1/account/logout`.
 */
export const END_SESSION_PARAMETERS = [
  'id_token_hint',
  'client_id',
  'post_logout_redirect_uri',
  'state',
  'ui_locales',
] as const;

/** Those the page passes back when the user confirms: the hint stays with the server, the locale with the page. */
export const PAGE_LOGOUT_PARAMETERS = ['client_id', 'post_logout_redirect_uri', 'state'] as const;

export type PageLogoutParameters = { [P in (typeof PAGE_LOGOUT_PARAMETERS)[number]]?: string };
