/**
 * Service tokens: access tokens an app is issued for itself, without a user (RFC 6749 §4.4;
 * docs/interface.md#service-accounts-client-credentials). Their own record and repository, apart from the
 * user tokens of records.ts, so that nothing that asks about a user's tokens can ever be handed one.
 */

export interface ServiceTokenRecord {
  /** credentialKey of the token (src/oauth/credentials.ts), never the token. */
  readonly tokenHash: string;
  readonly clientId: string;
  /** The granted scope, space-separated (RFC 6749 §3.3); never empty. */
  readonly scope: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly revoked: boolean;
}

/** A service token still good at a time, with what its app allows now. */
export interface ActiveServiceToken {
  readonly token: Omit<ServiceTokenRecord, 'revoked'>;
  /** The app's allowed_scopes now: a scope taken off the app is off its tokens too. */
  readonly allowedScopes: readonly string[];
}

export interface ServiceTokenRepository {
  insert(token: ServiceTokenRecord): Promise<void>;
  /** The token by its key, whatever its state (revocation checks which client it belongs to). */
  find(tokenHash: string): Promise<ServiceTokenRecord | undefined>;
  /**
   * The token if it is unrevoked and unexpired at `now`, and its app exists, is enabled, and still has the
   * client_credentials switch on.
   */
  findActive(tokenHash: string, now: number): Promise<ActiveServiceToken | undefined>;
  revoke(tokenHash: string): Promise<void>;
  /** Revokes every service token of the app, for good (switch off, scopes narrowed, secret rotated, disabled). */
  revokeForApp(clientId: string): Promise<void>;
  /** Deletes the tokens expired at `now`; answers how many. */
  purgeExpired(now: number): Promise<number>;
}
