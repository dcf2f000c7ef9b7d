/**
 * One small interface per entity (docs/architecture.md#storage), each implemented by its module in this
 * folder; `Store` (store.ts) holds one of each.
 */
import type {
  AccessTokenRecord,
  ActiveTokenOwner,
  AppRecord,
  AuditEventRecord,
  AuditQuery,
  AuthorizationCodeRecord,
  ClientRecord,
  ConsentRecord,
  ConsentWithApp,
  NewUserRecord,
  RefreshTokenRecord,
  ResetCodeRecord,
  SessionRecord,
  SigningKeyRecord,
  ThrottleState,
  TokenSubject,
  UserListQuery,
  UserRecord,
  UserSource,
  UserUpdate,
} from './records.js';
import type { RoleGrant } from '../shared/roles.js';

// Split by what they are for; store.ts exports them all from here.
export * from './second-factor-repositories.js';
export * from './cas-device-repositories.js';

export interface ResetCodeRepository {
  /** Stores the user's code, replacing any earlier one. */
  put(code: ResetCodeRecord): Promise<void>;
  /**
   * Deletes and answers the user's code if it is `codeHash` and unexpired at `now` (single use: of two
   * concurrent redemptions only one gets it).
   */
  take(uin: number, codeHash: string, now: number): Promise<boolean>;
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
  /**
   * The enabled admins whose account has not expired at `now` (whatever their expiry without `now`); with
   * `lasting`, only those whose account never expires (docs/interface.md#admin-api: the service keeps one).
   */
  countAdmins(now?: number, options?: { readonly lasting?: boolean }): Promise<number>;
  /** Every user whose password lives in `source` (the directory sync reads all of its users), by uin. */
  listBySource(source: UserSource): Promise<UserRecord[]>;
  /**
   * Inside `store.transaction`: makes the transactions that may take away an admin run one after another until
   * they commit, so that each counts the admins the others left (PostgreSQL: a transaction-scoped advisory
   * lock; SQLite's write transactions are one at a time already).
   */
  lockAdminChanges(): Promise<void>;
  /**
   * Sets `lastSignInAt`. Apart from `update`, so that it is not flushed to disk like an account change
   * (writeDurably in src/storage/durable-writes.ts): a lost sign-in time costs nothing.
   */
  recordSignIn(uin: number, at: number): Promise<void>;
  /** The users of these uins that exist, in no particular order. */
  findMany(uins: readonly number[]): Promise<UserRecord[]>;
  /**
   * Enabled users not signed in since `before` (never signed in: created before it), oldest first; at most
   * `limit`.
   */
  listDormant(before: number, limit: number): Promise<UserRecord[]>;
  /** Whether any password hash still has the previous system's parameters (`m=65536,t=1,p=2`). */
  hasPreviousSystemHashes(): Promise<boolean>;
}

/** The roles users hold beside `user_group` (docs/interface.md#roles). */
export interface RoleRepository {
  forUser(uin: number): Promise<RoleGrant[]>;
  /** The roles of each of these uins that holds any. */
  forUsers(uins: readonly number[]): Promise<Map<number, RoleGrant[]>>;
  /** Replaces the user's roles with these (none: the user holds no role any more). */
  replace(uin: number, grants: readonly RoleGrant[], at: number): Promise<void>;
}

export interface AppRepository {
  find(clientId: string): Promise<AppRecord | undefined>;
  /** Client authentication's read: only the columns it needs (a hot path). */
  findClient(clientId: string): Promise<ClientRecord | undefined>;
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
        | 'casServices'
        | 'deviceGrant'
        | 'clientCredentials'
        | 'allowedScopes'
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
  /** Records how the session has proven who the user is (RFC 8176 `amr`). */
  setAmr(idHash: string, amr: readonly string[]): Promise<void>;
  /** Ends one session; answers whether it existed. */
  delete(idHash: string): Promise<boolean>;
  /** Ends the user's session with this public id; answers whether it existed. */
  deleteBySid(uin: number, sid: string): Promise<boolean>;
  /** Ends every session of the user, but `keepIdHash` when given; answers how many ended. */
  deleteForUser(uin: number, keepIdHash?: string): Promise<number>;
}

/**
 * A logout to send: the ended session's sid, the app, and the user. Two kinds share the queue: an OpenID
 * Connect back-channel `logout_token`, and a CAS `logoutRequest` (its row keyed by `cas:` and the ticket's
 * digest in place of the sid, one per validated ticket), posted to `casService` with the sealed ticket.
 */
export interface LogoutDelivery {
  readonly sid: string;
  readonly clientId: string;
  readonly uin: number;
  readonly attempts: number;
  readonly firstAttemptAt: number | null;
  readonly kind?: 'backchannel' | 'cas';
  readonly casService?: string | null;
  readonly casTicket?: string | null;
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
  /** The number of deliveries not yet made, per app (only the one app, given its client id). */
  pendingByApp(clientId?: string): Promise<Map<string, number>>;
  /** Calls `listener` whenever a sign-out has queued deliveries (the worker sends them at once). */
  onQueued(listener: () => void): () => void;
}

/** A code with the user who granted it (undefined if that user has since been deleted). */
export interface CodeWithGrantor {
  readonly code: AuthorizationCodeRecord;
  readonly user: TokenSubject | undefined;
}

/** The code exchange's read: the app the client names, and the code with its grantor (each if it exists). */
export interface ExchangeRead {
  readonly client: ClientRecord | undefined;
  readonly found: CodeWithGrantor | undefined;
}

export interface CodeRepository {
  insert(code: AuthorizationCodeRecord): Promise<void>;
  find(codeHash: string): Promise<AuthorizationCodeRecord | undefined>;
  /** The code and its user in one query (one round trip on PostgreSQL). */
  findWithGrantor(codeHash: string): Promise<CodeWithGrantor | undefined>;
  /**
   * The code exchange's read: findWithGrantor and the app `clientId` names (as `apps.findClient` reads it),
   * in one query, so the exchange authenticates its client without a round trip of its own.
   */
  findForExchange(codeHash: string, clientId: string): Promise<ExchangeRead>;
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
   * `now`, its user is enabled, its app exists and is enabled, and the user may use the app (in one of its
   * `allowed_groups`, when it names any).
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
  /**
   * The users holding anything of the app still usable at `now`: an unrevoked, unexpired access or refresh
   * token, or a code not yet redeemed (its allowed groups changed: src/domain/app-access.ts).
   */
  listHolders(clientId: string, now: number): Promise<number[]>;
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
