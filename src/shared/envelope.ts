/**
 * The envelope codes: every answer of `/v1/account/…`, `/v1/admin/…`, the page's `/v1/oauth2` calls and the
 * legacy endpoints is `{code, msg, data}`, and `code` is one of these (docs/interface.md#the-envelope).
 * Shared by the server, which answers them, and the pages, which act on them; dependency-free.
 */
export const EnvelopeCode = {
  /** 200: the call succeeded. */
  Ok: 0,
  /** 400 (and 401 on sign-in): the request is malformed, or the uin or password is wrong. */
  InvalidRequest: 1,
  /** Legacy token endpoint: `invalid_client` or `invalid_grant` (RFC 6749 §5.2). */
  InvalidClientOrGrant: 2,
  /** 400: an unknown or disabled client, or an unregistered redirect URI, shown and never redirected. */
  InvalidClientOrRedirect: 3,
  /** 401: not signed in, or the bearer token is missing, unknown, expired or revoked. */
  NotSignedIn: -1,
  /** 403: signed in, but not allowed (not an admin; a cross-site request). */
  Forbidden: 4,
  /** 404: no such user, app or consent. */
  NotFound: 5,
  /** 409: already exists, or would remove the last enabled admin. */
  Conflict: 6,
  /** 429: too many attempts; `Retry-After` says when to try again. */
  Throttled: 7,
  /** 403: reserved for a second factor the call needs first (docs/interface.md#second-factor). */
  SecondFactorRequired: 8,
  /**
   * 403: the password was set by someone else (first start, an admin, a CSV import) and must be changed first;
   * only `POST /v1/account/password`, `GET /v1/account/me` and sign-out answer until then (docs/security.md).
   */
  PasswordChangeRequired: 9,
  /**
   * 503: the school's directory cannot be asked, so a directory user's password cannot be checked; local users
   * are unaffected (docs/interface.md#the-schools-directory).
   */
  DirectoryUnavailable: 10,
  /** 500: internal error (logged; never detailed in the answer). */
  Internal: 99,
} as const;

export type EnvelopeCode = (typeof EnvelopeCode)[keyof typeof EnvelopeCode];
