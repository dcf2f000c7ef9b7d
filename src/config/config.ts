import { dirname, join } from 'node:path';
import { type BrandingConfig, BrandingConfigError, readBranding } from './branding.js';

/**
 * Configuration is read from the environment exactly once, here, and validated into one typed object
 * (docs/interface.md#configuration). Nothing else in the code base reads `process.env`.
 */

export type DatabaseConfig =
  | { readonly kind: 'sqlite'; readonly file: string; readonly url: string }
  | { readonly kind: 'postgres'; readonly url: string };

/**
 * Where the key-encryption key of the id_token signing keys comes from (docs/security.md): never the
 * database, so a copy of the database alone cannot sign tokens.
 */
export type SecretKeySource =
  | { readonly kind: 'value'; readonly value: string }
  | { readonly kind: 'file'; readonly path: string; readonly createIfMissing: boolean };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Public base URL without a trailing slash, e.g. `https://sso.example.edu`. */
  readonly baseUrl: string;
  /** The issuer identifier (RFC 8414 §2): the base URL. */
  readonly issuer: string;
  readonly secureCookies: boolean;
  readonly database: DatabaseConfig;
  readonly accessTokenTtl: number;
  readonly refreshTokenTtl: number;
  readonly sessionTtl: number;
  readonly authorizationCodeTtl: number;
  readonly logLevel: LogLevel;
  readonly trustProxy: boolean;
  /**
   * Seconds a stopping server waits for requests in flight before it closes their connections and exits
   * (README.md#configuration). Idle keep-alive connections are closed at once, not waited for.
   */
  readonly shutdownTimeout: number;
  readonly secretKey: SecretKeySource;
  /** The school's name, logo, colour and helpdesk, shown on every page (GET /v1/branding). */
  readonly branding: BrandingConfig;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
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

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const normalized = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalized)) return true;
  if (['0', 'false', 'no', 'off'].includes(normalized)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function readBaseUrl(env: Env, port: number): string {
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

function readDatabase(env: Env): DatabaseConfig {
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
    return { kind: 'postgres', url };
  }
  throw new ConfigError(
    `DATABASE_URL must be sqlite:<file path> or postgres://user@host:port/database, got "${url.replace(/:[^:@/]*@/, ':***@')}"`,
  );
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function readLogLevel(env: Env): LogLevel {
  const raw = env.LOG_LEVEL;
  if (raw === undefined || raw === '') return 'info';
  const level = raw.trim().toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(level)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return level;
}

function readHost(env: Env): string {
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
function readSecretKey(env: Env, database: DatabaseConfig): SecretKeySource {
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

function brandingOf(env: Env): BrandingConfig {
  try {
    return readBranding(env);
  } catch (error) {
    if (error instanceof BrandingConfigError) throw new ConfigError(error.message);
    throw error;
  }
}

/** Reads and validates the configuration; throws a ConfigError with a one-line message on a bad value. */
export function loadConfig(env: Env): Config {
  const port = readInteger(env, 'PORT', 8080, 0, 65535);
  const baseUrl = readBaseUrl(env, port);
  const database = readDatabase(env);
  return {
    port,
    host: readHost(env),
    baseUrl,
    issuer: baseUrl,
    secureCookies: baseUrl.startsWith('https:'),
    database,
    accessTokenTtl: readInteger(env, 'ACCESS_TOKEN_TTL', 7200, 60, 31_536_000),
    refreshTokenTtl: readInteger(env, 'REFRESH_TOKEN_TTL', 30 * 24 * 3600, 60, 31_536_000),
    sessionTtl: readInteger(env, 'SESSION_TTL', 7 * 24 * 3600, 60, 31_536_000),
    authorizationCodeTtl: 600,
    logLevel: readLogLevel(env),
    trustProxy: readBoolean(env, 'TRUST_PROXY', false),
    shutdownTimeout: readInteger(env, 'SHUTDOWN_TIMEOUT', 10, 0, 600),
    secretKey: readSecretKey(env, database),
    branding: brandingOf(env),
  };
}
