/**
 * The one storage interface (the model is ory/hydra's `persistence/`): the protocol and domain code talk to
 * this, never to SQL, and never know whether SQLite or PostgreSQL is behind it. All times are epoch
 * milliseconds; all secrets (passwords aside) are stored as SHA-256 hex digests, never in plain text.
 * Codes and tokens (`codeHash`, `tokenHash`) are stored under `credentialKey` (src/oauth/credentials.ts): their
 * digest behind a time prefix, so that rows arrive in index order.
 */

export const USER_GROUPS = ['admin', 'member', 'user'] as const;
export type UserGroup = (typeof USER_GROUPS)[number];

export interface UserRecord {
  readonly uin: number;
  readonly passwordHash: string;
  readonly userGroup: UserGroup;
  readonly createdAt: number;
  readonly disabled: boolean;
}

export interface AppRecord {
  readonly clientId: string;
  readonly name: string;
  readonly emoji: string;
  /** SHA-256 hex of the client secret. */
  readonly secretHash: string;
  readonly redirectUris: readonly string[];
  readonly createdAt: number;
  readonly disabled: boolean;
  /** docs/interface.md#openid-connect: refresh tokens are issued for `offline_access` unless an admin switched them off. */
  readonly allowRefreshTokens: boolean;
  /** Shown to every signed-in user in the home page's app launcher (absent: not listed). */
  readonly listed?: boolean;
  /** Where the app's launcher tile leads (absent or null: the origin of its first redirect URI). */
  readonly homepageUrl?: string | null;
}

export interface SessionRecord {
  readonly idHash: string;
  readonly uin: number;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export type CodeChallengeMethod = 'S256' | 'plain';

export interface AuthorizationCodeRecord {
  readonly codeHash: string;
  readonly clientId: string;
  readonly uin: number;
  readonly redirectUri: string;
  readonly scope: string | null;
  readonly nonce: string | null;
  readonly codeChallenge: string | null;
  readonly codeChallengeMethod: CodeChallengeMethod | null;
  /** When the user signed in (OIDC `auth_time`), epoch ms. */
  readonly authTime: number;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly usedAt: number | null;
}

export interface AccessTokenRecord {
  readonly tokenHash: string;
  readonly clientId: string;
  readonly uin: number;
  readonly scope: string | null;
  /** The code this token was issued from, so a replayed code revokes it (RFC 9700 §4.2.4). */
  readonly codeHash: string | null;
  /** The refresh-token family this token belongs to, so a replayed refresh token revokes it. */
  readonly familyId: string | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly revoked: boolean;
}

export interface RefreshTokenRecord {
  readonly tokenHash: string;
  /** All refresh tokens rotated from one grant share a family (RFC 9700 §4.14.2). */
  readonly familyId: string;
  readonly clientId: string;
  readonly uin: number;
  readonly scope: string | null;
  readonly authTime: number;
  readonly codeHash: string | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** Set when this token was exchanged for a new one; a second use is a replay. */
  readonly rotatedAt: number | null;
  readonly revoked: boolean;
}

export interface ConsentRecord {
  readonly uin: number;
  readonly clientId: string;
  readonly scope: string | null;
  readonly grantedAt: number;
}

/** A consent joined with the app it names, for the account page. */
export interface ConsentWithApp extends ConsentRecord {
  readonly name: string;
  readonly emoji: string;
}

/**
 * The answer to the hot-path question "whose token is this, and is it still good?" — only what user
 * information and introspection show, so the query reads no more than that.
 */
export interface ActiveTokenOwner {
  readonly token: Pick<AccessTokenRecord, 'clientId' | 'scope' | 'createdAt' | 'expiresAt'>;
  readonly user: Pick<UserRecord, 'uin' | 'userGroup' | 'createdAt'>;
}

export interface SigningKeyRecord {
  readonly kid: string;
  readonly alg: string;
  /** Private JWK: encrypted at rest (`enc:v1:…`, src/oauth/key-encryption.ts); plain JSON before that. */
  readonly privateJwk: string;
  readonly publicJwk: string;
  readonly createdAt: number;
}

export interface ThrottleState {
  readonly failures: number;
  readonly windowStart: number;
  readonly lockedUntil: number;
}

export interface UserListQuery {
  /** Matches uins that start with these digits. */
  readonly search?: string | undefined;
  readonly group?: UserGroup | undefined;
  readonly offset: number;
  readonly limit: number;
}

export interface PurgeReport {
  readonly codes: number;
  readonly accessTokens: number;
  readonly refreshTokens: number;
  readonly sessions: number;
  readonly throttles: number;
}

export interface UserRepository {
  find(uin: number): Promise<UserRecord | undefined>;
  /** Inserts a user; answers false (and changes nothing) when the uin is taken. */
  insert(user: UserRecord): Promise<boolean>;
  update(
    uin: number,
    changes: Partial<Pick<UserRecord, 'passwordHash' | 'userGroup' | 'disabled'>>,
  ): Promise<boolean>;
  list(query: UserListQuery): Promise<{ users: UserRecord[]; total: number }>;
  countAdmins(): Promise<number>;
}

export interface AppRepository {
  find(clientId: string): Promise<AppRecord | undefined>;
  insert(app: AppRecord): Promise<boolean>;
  update(
    clientId: string,
    changes: Partial<
      Pick<
        AppRecord,
        | 'name'
        | 'emoji'
        | 'secretHash'
        | 'redirectUris'
        | 'disabled'
        | 'allowRefreshTokens'
        | 'listed'
        | 'homepageUrl'
      >
    >,
  ): Promise<boolean>;
  /** Deletes the app and everything issued to it (codes, tokens, consents). */
  delete(clientId: string): Promise<boolean>;
  list(): Promise<AppRecord[]>;
}

export interface SessionRepository {
  insert(session: SessionRecord): Promise<void>;
  /** The session if it exists and has not expired at `now`. */
  findActive(idHash: string, now: number): Promise<SessionRecord | undefined>;
  delete(idHash: string): Promise<void>;
  /** Ends every session of the user, but `keepIdHash` when given. */
  deleteForUser(uin: number, keepIdHash?: string): Promise<void>;
}

/** A code with the user who granted it (undefined if that user has since been deleted). */
export interface CodeWithGrantor {
  readonly code: AuthorizationCodeRecord;
  readonly user: UserRecord | undefined;
}

export interface CodeRepository {
  insert(code: AuthorizationCodeRecord): Promise<void>;
  find(codeHash: string): Promise<AuthorizationCodeRecord | undefined>;
  /** The code exchange's read: the code and its user in one query (one round trip on PostgreSQL). */
  findWithGrantor(codeHash: string): Promise<CodeWithGrantor | undefined>;
}

export interface TokenRepository {
  /**
   * Atomically marks the code used and stores the tokens issued for it. Answers false, storing nothing,
   * when the code had already been used (a concurrent replay): the caller then revokes its tokens.
   */
  redeemCode(
    codeHash: string,
    now: number,
    accessToken: AccessTokenRecord,
    refreshToken: RefreshTokenRecord | undefined,
  ): Promise<boolean>;
  /** RFC 9700 §4.2.4: a replayed code revokes every token issued from it. */
  revokeByCode(codeHash: string): Promise<void>;
  /**
   * The hot path of get-user-info: the token with its user, only if the token is unrevoked and unexpired at
   * `now`, its user is enabled, and its app exists and is enabled.
   */
  findActiveOwner(tokenHash: string, now: number): Promise<ActiveTokenOwner | undefined>;
  findAccessToken(tokenHash: string): Promise<AccessTokenRecord | undefined>;
  revokeAccessToken(tokenHash: string): Promise<void>;
  findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | undefined>;
  /**
   * Atomically marks `oldHash` rotated and stores the successors. Answers false, storing nothing, when it had
   * been rotated or revoked already (a replay): the caller then revokes the family.
   */
  rotateRefreshToken(
    oldHash: string,
    now: number,
    accessToken: AccessTokenRecord,
    refreshToken: RefreshTokenRecord,
  ): Promise<boolean>;
  /** RFC 9700 §4.14.2: revokes every refresh and access token of the family. */
  revokeFamily(familyId: string): Promise<void>;
  /** Revokes everything a user granted an app (consent withdrawn). */
  revokeForUserAndApp(uin: number, clientId: string): Promise<void>;
}

export interface ConsentRepository {
  find(uin: number, clientId: string): Promise<ConsentRecord | undefined>;
  upsert(consent: ConsentRecord): Promise<void>;
  delete(uin: number, clientId: string): Promise<boolean>;
  listForUser(uin: number): Promise<ConsentWithApp[]>;
}

export interface ThrottleRepository {
  get(key: string): Promise<ThrottleState | undefined>;
  /**
   * Atomically counts one attempt against `key` and answers the new state; a window that started at or
   * before `windowStartedBy` is over, so the count starts again at 1 (a lock in force is kept).
   */
  hit(key: string, now: number, windowStartedBy: number): Promise<ThrottleState>;
  /** Locks `key` until `until`, unless it is locked longer already. */
  lock(key: string, until: number): Promise<void>;
  /** Takes one counted attempt back (it succeeded), never below zero. */
  refund(key: string): Promise<void>;
  delete(key: string): Promise<void>;
}

export interface SigningKeyRepository {
  list(): Promise<SigningKeyRecord[]>;
  /** Inserts unless a key with the same kid exists. */
  insert(key: SigningKeyRecord): Promise<void>;
  /** Replaces the stored private JWK, if it is still `from` (encrypting a key stored in plain text). */
  replacePrivateJwk(kid: string, from: string, to: string): Promise<void>;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  readonly users: UserRepository;
  readonly apps: AppRepository;
  readonly sessions: SessionRepository;
  readonly codes: CodeRepository;
  readonly tokens: TokenRepository;
  readonly consents: ConsentRepository;
  readonly throttles: ThrottleRepository;
  readonly signingKeys: SigningKeyRepository;
  /** Applies pending migrations; safe to run concurrently from several instances. */
  migrate(): Promise<string[]>;
  /** Answers when the database is reachable (GET /readyz). */
  ping(): Promise<void>;
  /** Deletes expired codes, tokens, sessions and throttle windows. */
  purgeExpired(now: number): Promise<PurgeReport>;
  close(): Promise<void>;
}
