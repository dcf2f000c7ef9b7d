/**
 * The database schema as Kysely sees it. Booleans are 0/1 integers and times epoch-millisecond BIGINTs on
 * both databases, so every query and comparison is the same SQL on SQLite and PostgreSQL.
 */
export interface UsersTable {
  uin: number;
  password_hash: string;
  user_group: string;
  created_at: number;
  disabled: number;
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
  /** 0006-app-launcher: shown to everyone in the launcher (0/1), and where its tile leads. */
  listed: number;
  homepage_url: string | null;
}

export interface SessionsTable {
  id_hash: string;
  uin: number;
  created_at: number;
  expires_at: number;
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
}
