/**
 * The database schema as Kysely sees it. Booleans are 0/1 integers and times epoch-millisecond BIGINTs on
 * both databases, so every query and comparison is the same SQL on SQLite and PostgreSQL.
 */
import type { Selectable } from 'kysely';
import type {
  TotpCredentialsTable,
  PasskeysTable,
  RecoveryCodesTable,
  WebauthnChallengesTable,
  PendingSignInsTable,
  SecondFactorSignInsTable,
} from './schema-second-factors.js';
import type { CasTicketsTable, DeviceAuthorizationsTable, PhoneSignInsTable } from './schema-cas-device.js';

export interface UsersTable {
  uin: number;
  password_hash: string;
  user_group: string;
  created_at: number;
  disabled: number;
  /** 0/1; added by 0002-security-events. */
  must_change_password: number;
  name: string | null;
  email: string | null;
  /** JSON array of group tags. */
  groups: string;
  expires_at: number | null;
  last_sign_in_at: number | null;
  /** `local` | `ldap`; added by 0013-user-source. */
  source: string;
}

export interface AppsTable {
  client_id: string;
  name: string;
  emoji: string;
  secret_hash: string;
  /** JSON array of strings. */
  redirect_uris: string;
  created_at: number;
  disabled: number;
  allow_refresh_tokens: number;
  /** JSON array of group tags; empty: everyone may use the app. */
  allowed_groups: string;
  /** JSON array of strings (OpenID Connect RP-Initiated Logout 1.0 §3). */
  post_logout_redirect_uris: string;
  backchannel_logout_uri: string | null;
  backchannel_logout_last_at: number | null;
  backchannel_logout_last_result: string | null;
  /** 0006-app-launcher: shown to everyone in the launcher (0/1), and where its tile leads. */
  listed: number;
  homepage_url: string | null;
  /** 0012-cas: JSON array of canonical CAS service URLs. */
  cas_services: string;
  /** 0014-device-grant: 0/1, the app may use the Device Authorization Grant (RFC 8628). */
  device_grant: number;
  /** 0016-service-accounts: 0/1, the app may use the client_credentials grant (RFC 6749 §4.4). */
  client_credentials: number;
  /** 0016-service-accounts: JSON array of the scopes its client_credentials tokens may carry. */
  allowed_scopes: string;
}

export interface SessionsTable {
  id_hash: string;
  uin: number;
  created_at: number;
  expires_at: number;
  /** RFC 8176 authentication methods, space-separated (e.g. `pwd otp mfa`). */
  amr: string;
  sid: string;
  last_seen_at: number;
  idle_expires_at: number;
  ip: string | null;
  user_agent: string | null;
  shared: number;
}

export interface AuthorizationCodesTable {
  code_hash: string;
  client_id: string;
  uin: number;
  redirect_uri: string;
  scope: string | null;
  nonce: string | null;
  code_challenge: string | null;
  code_challenge_method: string | null;
  auth_time: number;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  amr: string | null;
  sid: string | null;
}

export interface AccessTokensTable {
  token_hash: string;
  client_id: string;
  uin: number;
  scope: string | null;
  code_hash: string | null;
  family_id: string | null;
  created_at: number;
  expires_at: number;
  revoked: number;
}

export interface RefreshTokensTable {
  token_hash: string;
  family_id: string;
  client_id: string;
  uin: number;
  scope: string | null;
  auth_time: number;
  code_hash: string | null;
  created_at: number;
  expires_at: number;
  rotated_at: number | null;
  revoked: number;
  amr: string | null;
  sid: string | null;
}

export interface ConsentsTable {
  uin: number;
  client_id: string;
  scope: string | null;
  granted_at: number;
}

export interface LoginThrottlesTable {
  key: string;
  failures: number;
  window_start: number;
  locked_until: number;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  private_jwk: string;
  public_jwk: string;
  created_at: number;
}

export interface ResetCodesTable {
  uin: number;
  code_hash: string;
  created_at: number;
  expires_at: number;
}

export interface AuditEventsTable {
  id: string;
  at: number;
  actor_uin: number | null;
  action: string;
  target: string | null;
  ip: string | null;
  user_agent: string | null;
  outcome: string;
  /** JSON object, never a secret. */
  detail: string | null;
  /** 0015-roles: the app whose service token made the call (docs/interface.md#service-tokens-at-the-admin-api). */
  actor_client_id: string | null;
}

/** A role a user holds beside `user_group` (0015-roles; docs/interface.md#roles). */
export interface UserRolesTable {
  uin: number;
  role: string;
  /** JSON array of group tags. */
  groups: string;
  granted_at: number;
}

/** Which apps received an id_token in which session (Back-Channel Logout 1.0 §2.1). */
export interface SessionAppsTable {
  sid: string;
  client_id: string;
  uin: number;
  created_at: number;
}

export type LogoutDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A logout_token to send (Back-Channel Logout 1.0 §2.5), retried until it is answered 2xx or too old. */
export interface LogoutDeliveriesTable {
  sid: string;
  client_id: string;
  uin: number;
  status: LogoutDeliveryStatus;
  attempts: number;
  next_attempt_at: number;
  /** An instance that claimed the row owns it until then (a crashed one's claim runs out). */
  lease_until: number;
  first_attempt_at: number | null;
  last_attempt_at: number | null;
  last_result: string | null;
  /** 0012-cas: `backchannel` (a logout_token) or `cas` (a logoutRequest to `cas_service`). */
  kind: string;
  cas_service: string | null;
  /** The validated service ticket, sealed under the key-encryption key (its SessionIndex). */
  cas_ticket: string | null;
}

/** An access token issued to an app for itself, without a user (RFC 6749 §4.4; 0016-service-accounts). */
export interface ServiceTokensTable {
  token_hash: string;
  client_id: string;
  scope: string;
  created_at: number;
  expires_at: number;
  revoked: number;
}

export interface Database {
  users: UsersTable;
  apps: AppsTable;
  sessions: SessionsTable;
  authorization_codes: AuthorizationCodesTable;
  access_tokens: AccessTokensTable;
  refresh_tokens: RefreshTokensTable;
  consents: ConsentsTable;
  login_throttles: LoginThrottlesTable;
  signing_keys: SigningKeysTable;
  totp_credentials: TotpCredentialsTable;
  passkeys: PasskeysTable;
  recovery_codes: RecoveryCodesTable;
  webauthn_challenges: WebauthnChallengesTable;
  pending_sign_ins: PendingSignInsTable;
  reset_codes: ResetCodesTable;
  audit_events: AuditEventsTable;
  session_apps: SessionAppsTable;
  logout_deliveries: LogoutDeliveriesTable;
  second_factor_sign_ins: SecondFactorSignInsTable;
  cas_tickets: CasTicketsTable;
  device_authorizations: DeviceAuthorizationsTable;
  phone_sign_ins: PhoneSignInsTable;
  user_roles: UserRolesTable;
  service_tokens: ServiceTokensTable;
}

/**
 * A row of `table`, as a select answers it and as an insert writes it (every column is written: none has a
 * default). Each entity module maps it to its record (`toX`) and back (`xRow`).
 */
export type Row<T extends keyof Database> = Selectable<Database[T]>;
