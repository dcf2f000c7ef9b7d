/** The records the Store reads and writes (docs/architecture.md#storage): one shape per table row. */

// The one list of user groups (src/shared/users.ts).
export { USER_GROUPS, type UserGroup } from '../shared/users.js';
// Split by what they are for; store.ts exports them all from here.
export * from './second-factor-records.js';
export * from './cas-device-records.js';
export * from './audit-records.js';
import type { UserGroup } from '../shared/users.js';
import type { UserScope } from './audit-records.js';

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

/**
 * Where a user's password lives (docs/interface.md#the-schools-directory): `local`, an argon2id hash here;
 * `ldap`, the school's directory (no password is stored here).
 */
export const USER_SOURCES = ['local', 'ldap'] as const;
export type UserSource = (typeof USER_SOURCES)[number];

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
  readonly source: UserSource;
}

/**
 * The user tokens are issued about, as the code exchange reads them with the code (`codes.findWithGrantor`):
 * whether they may still have tokens, and what an id_token may say of them; never the password hash.
 */
export type TokenSubject = Pick<
  UserRecord,
  'uin' | 'userGroup' | 'createdAt' | 'disabled' | 'expiresAt' | 'name' | 'email' | 'groups'
>;

/** A user to insert: the profile may be left out (no name, email, groups, expiry or sign-in yet). */
export type NewUserRecord = Omit<UserRecord, keyof UserProfile | 'source'> &
  Partial<UserProfile> & { readonly source?: UserSource };

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
  /** docs/interface.md#cas-protocol: the CAS service URLs registered for it, canonical (absent: none). */
  readonly casServices?: readonly string[];
  /** docs/interface.md#device-authorization-grant: the app may use RFC 8628's device grant (absent: no). */
  readonly deviceGrant?: boolean;
  /** docs/interface.md#service-accounts-client-credentials: RFC 6749 §4.4 tokens for itself (absent: no). */
  readonly clientCredentials?: boolean;
  /** The scopes its client_credentials tokens may carry (absent: none). */
  readonly allowedScopes?: readonly string[];
}

/**
 * An app as client authentication reads it (`apps.findClient`, on every call to the token, revocation and
 * introspection endpoints; `codes.findForExchange` with the code, in the code exchange): who it is, its
 * secret's digest, and what it may do. The rest of the app's row is not read there.
 */
export type ClientRecord = Pick<
  AppRecord,
  | 'clientId'
  | 'secretHash'
  | 'disabled'
  | 'allowRefreshTokens'
  | 'allowedGroups'
  | 'deviceGrant'
  | 'clientCredentials'
  | 'allowedScopes'
>;

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

export interface UserListQuery {
  /** Matches uins that start with these digits. */
  readonly search?: string | undefined;
  /** Matches display names containing this text, ignoring case. */
  readonly name?: string | undefined;
  readonly group?: UserGroup | undefined;
  /** Only users carrying this group tag. */
  readonly tag?: string | undefined;
  /** Only the users of this scope (a role holder's list). */
  readonly scope?: UserScope | undefined;
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
