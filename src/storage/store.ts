/**
 * The one storage interface (the model is ory/hydra's `persistence/`): the protocol and domain code talk to
 * this, never to SQL, and never know whether SQLite or PostgreSQL is behind it. All times are epoch
 * milliseconds; all secrets (passwords aside) are stored as SHA-256 hex digests, never in plain text.
 * Codes and tokens (`codeHash`, `tokenHash`) are stored under `credentialKey` (src/oauth/credentials.ts): their
 * digest behind a time prefix, so that rows arrive in index order.
 */

export const USER_GROUPS = ['admin', 'member', 'user'] as const;
export type UserGroup = (typeof USER_GROUPS)[number];

/** A user's profile (docs/interface.md#people-groups-and-audit): optional on insert, always read back. */
export interface UserProfile {
  readonly name: string | null;
  readonly email: string | null;
  /** Group tags such as `teachers` or `class-2026-3`. */
  readonly groups: readonly string[];
  /** After this (epoch ms) the account acts as disabled; null: never. */
  readonly expiresAt: number | null;
  readonly lastSignInAt: number | null;
}

export interface UserRecord extends UserProfile {
  readonly uin: number;
  readonly passwordHash: string;
  readonly userGroup: UserGroup;
  readonly createdAt: number;
  readonly disabled: boolean;
  /**
   * The password was set by someone else (the first start, an admin, a CSV import) and must be changed before
   * anything else (docs/security.md).
   */
  readonly mustChangePassword: boolean;
}

/** A user to insert: the profile may be left out (no name, email, groups, expiry or sign-in yet). */
export type NewUserRecord = Omit<UserRecord, keyof UserProfile> & Partial<UserProfile>;

/** What an admin (or a sign-in) may change about a stored user. */
export type UserUpdate = Partial<
  Pick<
    UserRecord,
    | 'passwordHash'
    | 'userGroup'
    | 'disabled'
    | 'mustChangePassword'
    | 'name'
    | 'email'
    | 'groups'
    | 'expiresAt'
    | 'lastSignInAt'
  >
>;

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
  /** docs/interface.md#people-groups-and-audit: only members of these groups may use the app; empty: everyone. */
  readonly allowedGroups: readonly string[];
  /** OpenID Connect RP-Initiated Logout 1.0 §3: where the browser may be sent after signing out. */
  readonly postLogoutRedirectUris: readonly string[];
  /** OpenID Connect Back-Channel Logout 1.0 §2.2: where logout tokens are posted, if anywhere. */
  readonly backchannelLogoutUri: string | null;
  /** The last back-channel delivery attempt to this app, for its admin page. */
  readonly backchannelLogoutLast: LogoutAttempt | null;
  /** Shown to every signed-in user in the home page's app launcher (absent: not listed). */
  readonly listed?: boolean;
  /** Where the app's launcher tile leads (absent or null: the origin of its first redirect URI). */
  readonly homepageUrl?: string | null;
}

export interface LogoutAttempt {
  /** Epoch ms. */
  readonly at: number;
  /** `delivered`, or why not (`HTTP 503`, `timeout`, `connection refused`, …). */
  readonly result: string;
}

export interface SessionRecord {
  readonly idHash: string;
  /** The public session id (OIDC `sid`; docs/interface.md#sessions-and-sign-out), never the cookie. */
  readonly sid: string;
  readonly uin: number;
  readonly createdAt: number;
  /** The absolute end (SESSION_TTL). */
  readonly expiresAt: number;
  /** How the user signed in: RFC 8176 authentication methods (docs/interface.md#second-factor). */
  readonly amr: readonly string[];
  /** Updated at most once a minute, so that browsing costs no write per request. */
  readonly lastSeenAt: number;
  /** The idle end: last seen plus SESSION_IDLE_TTL (15 minutes on a shared computer). */
  readonly idleExpiresAt: number;
  readonly ip: string | null;
  readonly userAgent: string | null;
  /** Signed in with "This is a shared computer". */
  readonly shared: boolean;
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
  /** The session's authentication methods, for the id_token (null: issued before they were recorded). */
  readonly amr: readonly string[] | null;
  /** The session the code was issued in (the id_token's `sid`). */
  readonly sid: string | null;
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
  /** The authentication methods of the sign-in that started the family (null: not recorded). */
  readonly amr: readonly string[] | null;
  /** The session the grant started in (the id_token's `sid`). */
  readonly sid: string | null;
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

/** A TOTP credential (RFC 6238); unconfirmed until the user typed a first code. */
export interface TotpCredentialRecord {
  readonly uin: number;
  /** The base32 secret, sealed with the key-encryption key (src/domain/secret-box.ts). */
  readonly sealedSecret: string;
  readonly confirmedAt: number | null;
  /** The last time step accepted (RFC 6238 §5.2: no code twice). */
  readonly lastUsedStep: number | null;
  readonly createdAt: number;
}

/** A WebAuthn credential (passkey) registered by a user. */
export interface PasskeyRecord {
  readonly id: string;
  readonly uin: number;
  /** base64url */
  readonly credentialId: string;
  /** COSE public key, base64url */
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
  /** WebAuthn backup eligibility: `multiDevice` passkeys are synced between devices. */
  readonly deviceType: 'singleDevice' | 'multiDevice';
  readonly backedUp: boolean;
  readonly name: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
}

export type WebAuthnPurpose = 'register' | 'second-factor' | 'passwordless';

/** A WebAuthn challenge, stored (as its SHA-256) so any instance can finish a ceremony another began. */
export interface WebAuthnChallengeRecord {
  readonly challengeHash: string;
  readonly purpose: WebAuthnPurpose;
  readonly uin: number | null;
  readonly expiresAt: number;
}

/** A sign-in whose password was right and whose second factor is still awaited. */
export interface PendingSignInRecord {
  readonly idHash: string;
  readonly uin: number;
  readonly failures: number;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export interface UserListQuery {
  /** Matches uins that start with these digits. */
  readonly search?: string | undefined;
  readonly group?: UserGroup | undefined;
  /** Only users carrying this group tag. */
  readonly tag?: string | undefined;
  readonly offset: number;
  readonly limit: number;
}

export interface PurgeReport {
  readonly codes: number;
  readonly accessTokens: number;
  readonly refreshTokens: number;
  readonly sessions: number;
  readonly throttles: number;
  readonly resetCodes: number;
  readonly auditEvents: number;
  readonly logoutDeliveries: number;
}

/** A one-time password reset code (docs/interface.md#people-groups-and-audit), stored as its SHA-256 only. */
export interface ResetCodeRecord {
  readonly uin: number;
  readonly codeHash: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export interface ResetCodeRepository {
  /** Stores the user's code, replacing any earlier one. */
  put(code: ResetCodeRecord): Promise<void>;
  /**
   * Deletes and answers the user's code if it is `codeHash` and unexpired at `now` (single use: of two
   * concurrent redemptions only one gets it).
   */
  take(uin: number, codeHash: string, now: number): Promise<boolean>;
}

/** One recorded security event (docs/interface.md#people-groups-and-audit). */
export interface AuditEventRecord {
  readonly id: string;
  readonly at: number;
  readonly actorUin: number | null;
  readonly action: string;
  /** What the action was on: `user:<uin>`, `app:<client_id>`, … */
  readonly target: string | null;
  readonly ip: string | null;
  readonly userAgent: string | null;
  readonly outcome: string;
  /** Never a secret. */
  readonly detail: Readonly<Record<string, unknown>> | null;
}

export interface AuditQuery {
  /** Events by this uin or on the user with this uin. */
  readonly uin?: number | undefined;
  readonly actions?: readonly string[] | undefined;
  readonly outcome?: string | undefined;
  /** Epoch ms, inclusive. */
  readonly since?: number | undefined;
  /** Epoch ms, exclusive. */
  readonly until?: number | undefined;
  /** Only events older than this position in the (at, id) order (keyset pagination). */
  readonly before?: { readonly at: number; readonly id: string } | undefined;
  readonly limit: number;
}

export interface AuditRepository {
  insert(event: AuditEventRecord): Promise<void>;
  /** Newest first, by (at, id). */
  list(query: AuditQuery): Promise<AuditEventRecord[]>;
}

export interface UserRepository {
  find(uin: number): Promise<UserRecord | undefined>;
  /** Inserts a user; answers false (and changes nothing) when the uin is taken. */
  insert(user: NewUserRecord): Promise<boolean>;
  update(uin: number, changes: UserUpdate): Promise<boolean>;
  list(query: UserListQuery): Promise<{ users: UserRecord[]; total: number }>;
  countAdmins(): Promise<number>;
  /**
   * Sets `lastSignInAt`. Apart from `update`, so that it is not flushed to disk like an account change
   * (writeDurably in src/storage/connection.ts): a lost sign-in time costs nothing.
   */
  recordSignIn(uin: number, at: number): Promise<void>;
  /** The users of these uins that exist, in no particular order. */
  findMany(uins: readonly number[]): Promise<UserRecord[]>;
  /**
   * Enabled users not signed in since `before` (never signed in: created before it), oldest first; at most
   * `limit`.
   */
  listDormant(before: number, limit: number): Promise<UserRecord[]>;
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
        | 'postLogoutRedirectUris'
        | 'backchannelLogoutUri'
        | 'allowedGroups'
        | 'listed'
        | 'homepageUrl'
      >
    >,
  ): Promise<boolean>;
  /** Deletes the app and everything issued to it (codes, tokens, consents). */
  delete(clientId: string): Promise<boolean>;
  list(): Promise<AppRecord[]>;
}

/**
 * Ending a session (any delete below) queues, in the same transaction, a back-channel logout for every app
 * that received an id_token in it (docs/interface.md#sessions-and-sign-out), so no way of signing out can
 * forget one and a crash loses none.
 */
export interface SessionRepository {
  insert(session: SessionRecord): Promise<void>;
  /** The session if it exists and has neither expired nor idled out at `now`. */
  findActive(idHash: string, now: number): Promise<SessionRecord | undefined>;
  /** Records activity: the session was seen at `now` and idles out at `idleExpiresAt`. */
  touch(idHash: string, now: number, idleExpiresAt: number): Promise<void>;
  /** The user's live sessions, newest first. */
  listForUser(uin: number, now: number): Promise<SessionRecord[]>;
  /** Ends one session; answers whether it existed. */
  delete(idHash: string): Promise<boolean>;
  /** Ends the user's session with this public id; answers whether it existed. */
  deleteBySid(uin: number, sid: string): Promise<boolean>;
  /** Ends every session of the user, but `keepIdHash` when given; answers how many ended. */
  deleteForUser(uin: number, keepIdHash?: string): Promise<number>;
}

/** A back-channel logout to send: the ended session's sid, the app, and the user. */
export interface LogoutDelivery {
  readonly sid: string;
  readonly clientId: string;
  readonly uin: number;
  readonly attempts: number;
  readonly firstAttemptAt: number | null;
}

/** The outcome of one delivery attempt. */
export type LogoutDeliveryOutcome =
  | { readonly status: 'delivered'; readonly result: string }
  | { readonly status: 'failed'; readonly result: string }
  | { readonly status: 'pending'; readonly result: string; readonly nextAttemptAt: number };

/** OpenID Connect Back-Channel Logout 1.0: which apps hold id_tokens of which session, and what to send. */
export interface LogoutRepository {
  /** Records that `clientId` received an id_token in session `sid`. */
  recordIdToken(sid: string, clientId: string, uin: number, now: number): Promise<void>;
  /**
   * Claims up to `limit` deliveries due at `now` for this instance until `leaseUntil`: a row is claimed by one
   * instance only, and a claim of an instance that died runs out at its lease.
   */
  claimDue(now: number, leaseUntil: number, limit: number): Promise<LogoutDelivery[]>;
  /** Records an attempt's outcome and releases the claim. */
  finish(delivery: LogoutDelivery, at: number, outcome: LogoutDeliveryOutcome): Promise<void>;
  /** The number of deliveries not yet made, per app. */
  pendingByApp(): Promise<Map<string, number>>;
  /** Calls `listener` whenever a sign-out has queued deliveries (the worker sends them at once). */
  onQueued(listener: () => void): () => void;
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
  /**
   * Voids the user's codes still redeemable at `now` (a security event, docs/security.md): they are marked
   * used, so a later redemption is refused as a replay. Answers how many.
   */
  voidForUser(uin: number, now: number): Promise<number>;
  /** Voids what voidForUser does, for one app only (consent withdrawn). */
  voidForUserAndApp(uin: number, clientId: string, now: number): Promise<number>;
  /** Voids what voidForUser does, for every user of one app (the app disabled). */
  voidForApp(clientId: string, now: number): Promise<number>;
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
  /** Revokes every access and refresh token of the user, for good (password reset, user disabled). */
  revokeAllForUser(uin: number): Promise<void>;
  /** Revokes every access and refresh token issued to the app, for good (app disabled). */
  revokeForApp(clientId: string): Promise<void>;
  /** Revokes the app's refresh tokens, for good (refresh tokens switched off for it). */
  revokeRefreshForApp(clientId: string): Promise<void>;
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
  /** The states of these keys that exist, by key. */
  getMany(keys: readonly string[]): Promise<Map<string, ThrottleState>>;
}

export interface SigningKeyRepository {
  list(): Promise<SigningKeyRecord[]>;
  /** Inserts unless a key with the same kid exists. */
  insert(key: SigningKeyRecord): Promise<void>;
  /** Replaces the stored private JWK, if it is still `from` (encrypting a key stored in plain text). */
  replacePrivateJwk(kid: string, from: string, to: string): Promise<void>;
}

export interface SecondFactorRepository {
  findTotp(uin: number): Promise<TotpCredentialRecord | undefined>;
  /** Stores a new unconfirmed secret over any unconfirmed one; answers false when a confirmed one exists. */
  putUnconfirmedTotp(credential: TotpCredentialRecord): Promise<boolean>;
  /**
   * Atomically accepts time step `step` for the user's TOTP credential (confirming it when `confirm`), only if
   * no later or equal step was accepted before; answers false when it was (a replay) or there is none.
   */
  acceptTotpStep(uin: number, step: number, confirm: { now: number } | undefined): Promise<boolean>;
  deleteTotp(uin: number): Promise<boolean>;
  listPasskeys(uin: number): Promise<PasskeyRecord[]>;
  findPasskey(credentialId: string): Promise<PasskeyRecord | undefined>;
  /** Answers false when the credential id is registered already. */
  insertPasskey(passkey: PasskeyRecord): Promise<boolean>;
  /** Records a use: the authenticator's new signature counter and the time. */
  touchPasskey(id: string, counter: number, now: number): Promise<void>;
  deletePasskey(uin: number, id: string): Promise<boolean>;
  /** Replaces every recovery code of the user by these (SHA-256 hex) in one transaction. */
  replaceRecoveryCodes(uin: number, codeHashes: readonly string[], now: number): Promise<void>;
  /** Atomically uses an unused recovery code; answers false when it is unknown or used. */
  useRecoveryCode(uin: number, codeHash: string, now: number): Promise<boolean>;
  countUnusedRecoveryCodes(uin: number): Promise<number>;
  /** Removes every second factor of the user (TOTP, passkeys, recovery codes). */
  deleteAll(uin: number): Promise<void>;
}

export interface WebAuthnChallengeRepository {
  insert(challenge: WebAuthnChallengeRecord): Promise<void>;
  /** Deletes and answers the challenge (single use), whether or not it has expired. */
  take(challengeHash: string): Promise<WebAuthnChallengeRecord | undefined>;
  purgeExpired(now: number): Promise<number>;
}

export interface PendingSignInRepository {
  insert(pending: PendingSignInRecord): Promise<void>;
  findActive(idHash: string, now: number): Promise<PendingSignInRecord | undefined>;
  /** Counts one wrong answer; answers the failures so far, or undefined when the sign-in is gone. */
  fail(idHash: string): Promise<number | undefined>;
  /** Ends it; answers false when it had ended already (so only one request completes it). */
  delete(idHash: string): Promise<boolean>;
  purgeExpired(now: number): Promise<number>;
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
  readonly secondFactors: SecondFactorRepository;
  readonly webAuthnChallenges: WebAuthnChallengeRepository;
  readonly pendingSignIns: PendingSignInRepository;
  readonly resetCodes: ResetCodeRepository;
  readonly audit: AuditRepository;
  readonly logouts: LogoutRepository;
  /** Applies pending migrations; safe to run concurrently from several instances. */
  migrate(): Promise<string[]>;
  /** Answers when the database reads and commits a write (GET /readyz); throws otherwise. */
  ping(): Promise<void>;
  /**
   * Deletes expired codes, tokens, sessions, throttle windows and reset codes, and audit events older than
   * `auditRetentionDays` (kept forever when omitted).
   */
  purgeExpired(now: number, auditRetentionDays?: number): Promise<PurgeReport>;
  close(): Promise<void>;
}
