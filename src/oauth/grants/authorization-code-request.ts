/**
 * What a token request presents for the authorization-code grant (RFC 6749 §4.1.3), and how the calling
 * endpoint wants it exchanged: read by the grant (authorization-code.ts) and by the retry of an exchange whose
 * answer was never delivered (authorization-code-retry.ts).
 */
export interface AuthorizationCodeExchange {
  readonly code: string | undefined;
  readonly redirectUri: string | undefined;
  readonly codeVerifier: string | undefined;
}

export interface AuthorizationCodeOptions {
  /**
   * RFC 6749 §4.1.3: redirect_uri is required when the authorization request carried one (at campus-sso it
   * always does). The legacy endpoint (docs/interface.md#legacy-token-endpoint) never sent it and is exempt.
   */
  readonly checkRedirectUri: boolean;
  /** The legacy endpoint answers only an access token, so it issues nothing else. */
  readonly accessTokenOnly: boolean;
  /**
   * The device_code grant (device-code.ts) redeems the code a device approval stored under the device code's
   * key; it is the only exchange that may, and its expired code is RFC 8628's `expired_token`.
   */
  readonly deviceGrant?: boolean;
}
