/**
 * Each setting's reader (docs/interface.md#configuration): one function per environment variable or group of
 * them, each throwing a ConfigError with a one-line message on a bad value. `loadConfig` (config.ts) calls
 * them; nothing else reads the environment.
 */
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';
import { USER_GROUPS } from '../shared/users.js';

export type DatabaseConfig =
  | { readonly kind: 'sqlite'; readonly file: string; readonly url: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly timeouts?: PostgresTimeouts };

/**
 * How a PostgreSQL connection that stops answering (a killed backend, a proxy restart, a failover that leaves
 * the old connections silently dead) is found and replaced (docs/interface.md#configuration). Milliseconds;
 * 0 turns a timeout off.
 */
export interface PostgresTimeouts {
  /** Opening a connection, or waiting for a free one from the pool. */
  readonly connectMs: number;
  /** Client side: a query with no answer by then fails, and its connection is closed, never reused. */
  readonly queryMs: number;
  /** Server side (`statement_timeout`): the server cancels a statement running this long. */
  readonly statementMs: number;
  /** Server side (`idle_in_transaction_session_timeout`): a transaction left idle this long is ended. */
  readonly idleInTransactionMs: number;
  /** TCP keepalive probes start after a connection is this long without traffic. */
  readonly keepAliveDelayMs: number;
}

/**
 * The statement timeout is shorter than the query timeout, so a slow but healthy query is cancelled by the
 * server (its connection stays usable) before the client gives up on the connection as dead.
 */
export const DEFAULT_POSTGRES_TIMEOUTS: PostgresTimeouts = {
  connectMs: 5_000,
  queryMs: 10_000,
  statementMs: 8_000,
  idleInTransactionMs: 10_000,
  keepAliveDelayMs: 10_000,
};

/**
 * Where the key-encryption key comes from (docs/security.md): never the database, so a copy of the database
 * alone can neither sign id_tokens nor read the secrets kept at rest (signing keys, TOTP secrets).
 */
export type SecretKeySource =
  | { readonly kind: 'value'; readonly value: string }
  | { readonly kind: 'file'; readonly path: string; readonly createIfMissing: boolean };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export type TrustProxy = false | number | readonly string[];

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export type Env = Readonly<Record<string, string | undefined>>;

export function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  const value = Number(raw.trim());
  if (value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** An IPv4 or IPv6 address, optionally with a CIDR prefix length. */
function isAddressOrCidr(value: string): boolean {
  const slash = value.indexOf('/');
  const address = slash === -1 ? value : value.slice(0, slash);
  const version = isIP(address);
  if (version === 0) return false;
  if (slash === -1) return true;
  const prefix = value.slice(slash + 1);
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/** A comma-separated list of addresses and CIDRs (TRUST_PROXY, LOGOUT_ALLOWED_NETWORKS), and its first bad entry. */
function addressList(raw: string): { entries: string[]; bad: string | undefined } {
  const entries = raw.split(',').map((entry) => entry.trim());
  return { entries, bad: entries.find((entry) => !isAddressOrCidr(entry)) };
}

/**
 * TRUST_PROXY (docs/operations.md): the client address is the first `X-Forwarded-For` entry not added by a
 * trusted proxy. `true` means one hop (the proxy in front), never "believe every entry".
 */
export function readTrustProxy(env: Env): TrustProxy {
  const raw = env.TRUST_PROXY?.trim();
  if (raw === undefined || raw === '') return false;
  const normalized = raw.toLowerCase();
  if (['0', 'false', 'no', 'off'].includes(normalized)) return false;
  if (['true', 'yes', 'on'].includes(normalized)) return 1;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > 10) throw new ConfigError(`TRUST_PROXY must be at most 10 hops, got "${raw}"`);
    return hops;
  }
  const { entries: proxies, bad } = addressList(raw);
  if (bad !== undefined) {
    throw new ConfigError(
      `TRUST_PROXY must be false, a number of hops, or a comma-separated list of proxy addresses or CIDRs (e.g. 10.0.0.5,192.168.0.0/16), got "${raw}"`,
    );
  }
  return proxies;
}

/**
 * LOGOUT_ALLOWED_NETWORKS (docs/operations.md#back-channel-logout): the school's own networks, as addresses
 * and CIDRs separated by commas, to which back-channel logouts and CAS single logouts may be delivered
 * although they are private (where a school's older apps live). Unset: public addresses only.
 */
export function readLogoutAllowedNetworks(env: Env): readonly string[] {
  const raw = env.LOGOUT_ALLOWED_NETWORKS?.trim();
  if (raw === undefined || raw === '') return [];
  const { entries: networks, bad } = addressList(raw);
  if (bad !== undefined) {
    throw new ConfigError(
      `LOGOUT_ALLOWED_NETWORKS must be addresses or CIDRs separated by commas (e.g. 10.20.0.0/16,192.168.1.10), got "${bad}"`,
    );
  }
  return networks;
}

export function readSecret(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 16 || /\s/.test(raw)) {
    throw new ConfigError(`${name} must be at least 16 characters without spaces`);
  }
  return raw;
}

export function readBaseUrl(env: Env, port: number): string {
  const raw = env.BASE_URL;
  if (raw === undefined || raw === '') return `http://localhost:${port}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      `BASE_URL must be an absolute http(s) URL such as https://sso.example.edu, got "${raw}"`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`BASE_URL must start with http:// or https://, got "${raw}"`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`BASE_URL must not carry a query, fragment or credentials, got "${raw}"`);
  }
  return url.href.replace(/\/+$/, '');
}

export function readDatabase(env: Env): DatabaseConfig {
  const raw = env.DATABASE_URL;
  const url = raw === undefined || raw === '' ? 'sqlite:./data/campus-sso.sqlite' : raw.trim();
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (file === '') {
      throw new ConfigError('DATABASE_URL "sqlite:" needs a file path, e.g. sqlite:./data/campus-sso.sqlite');
    }
    return { kind: 'sqlite', file, url };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    try {
      new URL(url);
    } catch {
      throw new ConfigError('DATABASE_URL is not a valid postgres:// URL');
    }
    return { kind: 'postgres', url, timeouts: readPostgresTimeouts(env) };
  }
  throw new ConfigError(
    `DATABASE_URL must be sqlite:<file path> or postgres://user@host:port/database, got "${url.replace(/:[^:@/]*@/, ':***@')}"`,
  );
}

const MAX_TIMEOUT_MS = 3_600_000;

function readPostgresTimeouts(env: Env): PostgresTimeouts {
  const read = (name: string, fallback: number, min = 0): number =>
    readInteger(env, name, fallback, min, MAX_TIMEOUT_MS);
  const defaults = DEFAULT_POSTGRES_TIMEOUTS;
  return {
    connectMs: read('DATABASE_CONNECT_TIMEOUT_MS', defaults.connectMs, 100),
    queryMs: read('DATABASE_QUERY_TIMEOUT_MS', defaults.queryMs),
    statementMs: read('DATABASE_STATEMENT_TIMEOUT_MS', defaults.statementMs),
    idleInTransactionMs: read('DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', defaults.idleInTransactionMs),
    keepAliveDelayMs: read('DATABASE_KEEPALIVE_DELAY_MS', defaults.keepAliveDelayMs, 1),
  };
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function readLogLevel(env: Env): LogLevel {
  const raw = env.LOG_LEVEL;
  if (raw === undefined || raw === '') return 'info';
  const level = raw.trim().toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(level)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return level;
}

export function readHost(env: Env): string {
  const raw = env.HOST;
  if (raw === undefined || raw === '') return '127.0.0.1';
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(raw)) {
    throw new ConfigError(`HOST must be an IP address or host name such as 0.0.0.0, got "${raw}"`);
  }
  return raw;
}

/** The shortest SECRET_KEY accepted: 32 characters, e.g. `openssl rand -base64 32` (44). */
export const MIN_SECRET_KEY_LENGTH = 32;

/**
 * SECRET_KEY (a value shared by every instance; required with PostgreSQL) or SECRET_KEY_FILE (default: beside
 * the SQLite database, i.e. ./data/secret.key with the default DATABASE_URL; created on first start).
 */
export function readSecretKey(env: Env, database: DatabaseConfig): SecretKeySource {
  const value = env.SECRET_KEY;
  const file = env.SECRET_KEY_FILE;
  const hasValue = value !== undefined && value !== '';
  const hasFile = file !== undefined && file !== '';
  if (hasValue && hasFile) throw new ConfigError('set SECRET_KEY or SECRET_KEY_FILE, not both');
  if (hasValue) {
    if (value.trim().length < MIN_SECRET_KEY_LENGTH) {
      throw new ConfigError(
        `SECRET_KEY must be at least ${MIN_SECRET_KEY_LENGTH} characters (generate one with: openssl rand -base64 32)`,
      );
    }
    return { kind: 'value', value: value.trim() };
  }
  if (hasFile) return { kind: 'file', path: file, createIfMissing: database.kind === 'sqlite' };
  if (database.kind === 'postgres') {
    throw new ConfigError(
      'SECRET_KEY is required with PostgreSQL: every instance must share the key that encrypts the id_token ' +
        'signing keys (generate one with: openssl rand -base64 32), or set SECRET_KEY_FILE to a file holding it',
    );
  }
  return { kind: 'file', path: join(dirname(database.file), 'secret.key'), createIfMissing: true };
}

/**
 * MFA_REQUIRED_GROUPS: a comma-separated list of groups (a user's `user_group`, e.g. `admin`); unset means
 * `admin`, empty means none.
 */
export function readMfaRequiredGroups(env: Env): readonly string[] {
  const raw = env.MFA_REQUIRED_GROUPS;
  if (raw === undefined) return ['admin'];
  const groups = raw
    .split(',')
    .map((group) => group.trim())
    .filter((group) => group !== '');
  for (const group of groups) {
    if (!/^[a-z0-9._-]{1,64}$/.test(group)) {
      throw new ConfigError(
        `MFA_REQUIRED_GROUPS must be group names such as ${USER_GROUPS.join(',')} separated by commas, got "${raw}"`,
      );
    }
  }
  return groups;
}
