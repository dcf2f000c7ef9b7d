import { type BrandingConfig, BrandingConfigError, readBranding } from './branding.js';
import { type LdapConfig, LdapConfigError, readLdap } from './ldap.js';
import {
  ConfigError,
  type DatabaseConfig,
  type Env,
  type LogLevel,
  type SecretKeySource,
  type TrustProxy,
  readBaseUrl,
  readDatabase,
  readHost,
  readInteger,
  readLogLevel,
  readMfaRequiredGroups,
  readSecret,
  readSecretKey,
  readTrustProxy,
  readLogoutAllowedNetworks,
} from './settings.js';

/**
 * Configuration is read from the environment exactly once, here, and validated into one typed object
 * (docs/interface.md#configuration). Nothing else in the code base reads `process.env`.
 */
export {
  ConfigError,
  DEFAULT_POSTGRES_TIMEOUTS,
  MIN_SECRET_KEY_LENGTH,
  type DatabaseConfig,
  type LogLevel,
  type PostgresTimeouts,
  type SecretKeySource,
  type TrustProxy,
} from './settings.js';

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
  /** Seconds a CAS service ticket may wait for validation (docs/interface.md#cas-protocol). */
  readonly casTicketTtl: number;
  /** RFC 8628 §3.2 expires_in: how long a device code waits for the user, seconds (60 to 1800). */
  readonly deviceCodeTtl: number;
  readonly logLevel: LogLevel;
  /**
   * Which proxies' `X-Forwarded-For` entries to believe: `false` (none), a number of hops, or a list of proxy
   * addresses and CIDRs. Never `true`, which would believe the client's own leftmost entry.
   */
  readonly trustProxy: TrustProxy;
  /**
   * Private networks (addresses and CIDRs) that back-channel logouts and CAS single logouts may be delivered to
   * (LOGOUT_ALLOWED_NETWORKS); empty: public addresses only (docs/security.md#back-channel-logout-destinations).
   */
  readonly logoutAllowedNetworks: readonly string[];
  /** When set, `GET /metrics` needs `Authorization: Bearer <metricsToken>`. */
  readonly metricsToken: string | undefined;
  /**
   * Seconds a stopping server waits for requests in flight before it closes their connections and exits
   * (README.md#configuration). Idle keep-alive connections are closed at once, not waited for.
   */
  readonly shutdownTimeout: number;
  /** The key-encryption key's source (SECRET_KEY or SECRET_KEY_FILE). */
  readonly secretKey: SecretKeySource;
  /**
   * Groups whose members need a second factor before any admin call works (docs/interface.md#second-factor);
   * MFA_REQUIRED_GROUPS, default `admin`, empty for none.
   */
  readonly mfaRequiredGroups: readonly string[];
  /** Days the audit trail keeps an event (docs/interface.md#people-groups-and-audit). */
  readonly auditRetentionDays: number;
  /** The school's name, logo, colour and helpdesk, shown on every page (GET /v1/branding). */
  readonly branding: BrandingConfig;
  /** The school's directory (LDAP_URL and the other LDAP_ settings); undefined: every user is local. */
  readonly ldap: LdapConfig | undefined;
}

function brandingOf(env: Env): BrandingConfig {
  try {
    return readBranding(env);
  } catch (error) {
    if (error instanceof BrandingConfigError) throw new ConfigError(error.message);
    throw error;
  }
}

function ldapOf(env: Env): LdapConfig | undefined {
  try {
    return readLdap(env);
  } catch (error) {
    if (error instanceof LdapConfigError) throw new ConfigError(error.message);
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
    sessionIdleTtl: readInteger(env, 'SESSION_IDLE_TTL', 8 * 3600, 60, 31_536_000),
    authorizationCodeTtl: 600,
    casTicketTtl: readInteger(env, 'CAS_TICKET_TTL', 10, 1, 300),
    deviceCodeTtl: readInteger(env, 'DEVICE_CODE_TTL', 600, 60, 1800),
    logLevel: readLogLevel(env),
    trustProxy: readTrustProxy(env),
    logoutAllowedNetworks: readLogoutAllowedNetworks(env),
    metricsToken: readSecret(env, 'METRICS_TOKEN'),
    shutdownTimeout: readInteger(env, 'SHUTDOWN_TIMEOUT', 10, 0, 600),
    secretKey: readSecretKey(env, database),
    mfaRequiredGroups: readMfaRequiredGroups(env),
    auditRetentionDays: readInteger(env, 'AUDIT_RETENTION_DAYS', 365, 1, 36_500),
    branding: brandingOf(env),
    ldap: ldapOf(env),
  };
}
