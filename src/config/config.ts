/**
 * Configuration is read from the environment exactly once, here, and validated into one typed object
 * (docs/interface.md#configuration). Nothing else in the code base reads `process.env`.
 */

export type DatabaseConfig =
  | { readonly kind: 'sqlite'; readonly file: string; readonly url: string }
  | { readonly kind: 'postgres'; readonly url: string };

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
  /** Seconds without a request after which a session ends (docs/interface.md#sessions-and-sign-out). */
  readonly sessionIdleTtl: number;
  readonly authorizationCodeTtl: number;
  readonly logLevel: LogLevel;
  readonly trustProxy: boolean;
  /**
   * Seconds a stopping server waits for requests in flight before it closes their connections and exits
   * (README.md#configuration). Idle keep-alive connections are closed at once, not waited for.
   */
  readonly shutdownTimeout: number;
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

/** Reads and validates the configuration; throws a ConfigError with a one-line message on a bad value. */
export function loadConfig(env: Env): Config {
  const port = readInteger(env, 'PORT', 8080, 0, 65535);
  const baseUrl = readBaseUrl(env, port);
  return {
    port,
    host: readHost(env),
    baseUrl,
    issuer: baseUrl,
    secureCookies: baseUrl.startsWith('https:'),
    database: readDatabase(env),
    accessTokenTtl: readInteger(env, 'ACCESS_TOKEN_TTL', 7200, 60, 31_536_000),
    refreshTokenTtl: readInteger(env, 'REFRESH_TOKEN_TTL', 30 * 24 * 3600, 60, 31_536_000),
    sessionTtl: readInteger(env, 'SESSION_TTL', 7 * 24 * 3600, 60, 31_536_000),
    sessionIdleTtl: readInteger(env, 'SESSION_IDLE_TTL', 8 * 3600, 60, 31_536_000),
    authorizationCodeTtl: 600,
    logLevel: readLogLevel(env),
    trustProxy: readBoolean(env, 'TRUST_PROXY', false),
    shutdownTimeout: readInteger(env, 'SHUTDOWN_TIMEOUT', 10, 0, 600),
  };
}
