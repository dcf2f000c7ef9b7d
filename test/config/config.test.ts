/**
 * Configuration (docs/interface.md#configuration): environment variables only, validated once at start-up
 * into one typed object; a bad value stops the start with a one-line message naming the variable.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_POSTGRES_TIMEOUTS, loadConfig } from '../../src/config/config.js';

const SECRET = 'a-secret-key-of-at-least-32-characters';

/** The ConfigError message `loadConfig(env)` throws. */
function problem(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  describe('defaults', () => {
    it('serves on 127.0.0.1:8080 with BASE_URL http://localhost:8080 and the SQLite file in ./data', () => {
      const config = loadConfig({});
      expect(config).toMatchObject({
        port: 8080,
        host: '127.0.0.1',
        baseUrl: 'http://localhost:8080',
        issuer: 'http://localhost:8080',
        secureCookies: false,
        database: {
          kind: 'sqlite',
          file: './data/campus-sso.sqlite',
          url: 'sqlite:./data/campus-sso.sqlite',
        },
      });
    });

    it('issues access tokens for 7200 s, refresh tokens for 30 days, sessions for 7 days, codes for 10 minutes', () => {
      expect(loadConfig({})).toMatchObject({
        accessTokenTtl: 7200,
        refreshTokenTtl: 2_592_000,
        sessionTtl: 604_800,
        authorizationCodeTtl: 600,
      });
    });

    it('gives CAS service tickets 10 s (CAS_TICKET_TTL), 1 to 300', () => {
      expect(loadConfig({}).casTicketTtl).toBe(10);
      expect(loadConfig({ CAS_TICKET_TTL: '30' }).casTicketTtl).toBe(30);
      expect(() => loadConfig({ CAS_TICKET_TTL: '0' })).toThrow(/CAS_TICKET_TTL/);
      expect(() => loadConfig({ CAS_TICKET_TTL: '301' })).toThrow(/CAS_TICKET_TTL/);
    });

    it('logs at info and does not trust a proxy', () => {
      expect(loadConfig({})).toMatchObject({ logLevel: 'info', trustProxy: false });
    });

    it('derives the default BASE_URL from PORT', () => {
      expect(loadConfig({ PORT: '9090' }).baseUrl).toBe('http://localhost:9090');
    });

    it('treats an empty variable as unset', () => {
      expect(
        loadConfig({ PORT: '', HOST: '', BASE_URL: '', DATABASE_URL: '', ACCESS_TOKEN_TTL: '' }),
      ).toMatchObject({
        port: 8080,
        host: '127.0.0.1',
        baseUrl: 'http://localhost:8080',
        accessTokenTtl: 7200,
      });
    });
  });

  describe('values', () => {
    it('reads PORT, HOST, ACCESS_TOKEN_TTL, REFRESH_TOKEN_TTL, SESSION_TTL, LOG_LEVEL and TRUST_PROXY', () => {
      expect(
        loadConfig({
          PORT: '3000',
          HOST: '0.0.0.0',
          ACCESS_TOKEN_TTL: '3600',
          REFRESH_TOKEN_TTL: '86400',
          SESSION_TTL: '600',
          LOG_LEVEL: 'WARN',
          TRUST_PROXY: 'true',
        }),
      ).toMatchObject({
        port: 3000,
        host: '0.0.0.0',
        accessTokenTtl: 3600,
        refreshTokenTtl: 86400,
        sessionTtl: 600,
        logLevel: 'warn',
        trustProxy: 1,
      });
    });

    it('reads TRUST_PROXY as one hop for true, a hop count, or a list of proxy addresses and CIDRs', () => {
      expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(1);
      expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
      expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
      expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
      expect(loadConfig({ TRUST_PROXY: '10.0.0.5, 192.168.0.0/16,::1,fd00::/8' }).trustProxy).toEqual([
        '10.0.0.5',
        '192.168.0.0/16',
        '::1',
        'fd00::/8',
      ]);
    });

    it('reads METRICS_TOKEN, unset by default', () => {
      expect(loadConfig({}).metricsToken).toBeUndefined();
      expect(loadConfig({ METRICS_TOKEN: 'a-long-enough-metrics-token' }).metricsToken).toBe(
        'a-long-enough-metrics-token',
      );
    });

    it('takes an https BASE_URL without its trailing slash, as the issuer, and turns on Secure cookies', () => {
      const config = loadConfig({ BASE_URL: 'https://sso.example.edu/' });
      expect(config).toMatchObject({
        baseUrl: 'https://sso.example.edu',
        issuer: 'https://sso.example.edu',
        secureCookies: true,
      });
    });

    it('keeps a BASE_URL path', () => {
      expect(loadConfig({ BASE_URL: 'https://www.example.edu/sso/' }).baseUrl).toBe(
        'https://www.example.edu/sso',
      );
    });

    it('reads a sqlite: DATABASE_URL as a file path', () => {
      expect(loadConfig({ DATABASE_URL: 'sqlite:/var/lib/campus-sso/db.sqlite' }).database).toEqual({
        kind: 'sqlite',
        file: '/var/lib/campus-sso/db.sqlite',
        url: 'sqlite:/var/lib/campus-sso/db.sqlite',
      });
    });

    it('reads a postgres:// or postgresql:// DATABASE_URL', () => {
      expect(loadConfig({ DATABASE_URL: 'postgres://sso@db:5432/sso', SECRET_KEY: SECRET }).database).toEqual(
        {
          kind: 'postgres',
          url: 'postgres://sso@db:5432/sso',
          timeouts: DEFAULT_POSTGRES_TIMEOUTS,
        },
      );
      expect(loadConfig({ DATABASE_URL: 'postgresql://sso@db/sso', SECRET_KEY: SECRET }).database.kind).toBe(
        'postgres',
      );
    });

    it('finds a dead PostgreSQL connection within seconds by default: keepalive, query and statement timeouts', () => {
      expect(DEFAULT_POSTGRES_TIMEOUTS).toEqual({
        connectMs: 5000,
        queryMs: 10_000,
        statementMs: 8000,
        idleInTransactionMs: 10_000,
        keepAliveDelayMs: 10_000,
      });
    });

    it('reads the PostgreSQL timeouts in milliseconds, 0 turning one off', () => {
      const config = loadConfig({
        DATABASE_URL: 'postgres://sso@db/sso',
        SECRET_KEY: SECRET,
        DATABASE_CONNECT_TIMEOUT_MS: '1000',
        DATABASE_QUERY_TIMEOUT_MS: '0',
        DATABASE_STATEMENT_TIMEOUT_MS: '1500',
        DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '0',
        DATABASE_KEEPALIVE_DELAY_MS: '2000',
      });
      expect(config.database).toMatchObject({
        timeouts: {
          connectMs: 1000,
          queryMs: 0,
          statementMs: 1500,
          idleInTransactionMs: 0,
          keepAliveDelayMs: 2000,
        },
      });
    });

    it('keeps the SQLite secret key file beside the database by default (./data/secret.key)', () => {
      expect(loadConfig({}).secretKey).toEqual({
        kind: 'file',
        path: 'data/secret.key',
        createIfMissing: true,
      });
      expect(loadConfig({ DATABASE_URL: 'sqlite:/var/lib/campus-sso/db.sqlite' }).secretKey).toEqual({
        kind: 'file',
        path: '/var/lib/campus-sso/secret.key',
        createIfMissing: true,
      });
    });

    it('reads SECRET_KEY, or SECRET_KEY_FILE (created on first start only for SQLite)', () => {
      expect(loadConfig({ SECRET_KEY: ` ${SECRET}\n` }).secretKey).toEqual({ kind: 'value', value: SECRET });
      expect(loadConfig({ SECRET_KEY_FILE: '/run/secrets/sso' }).secretKey).toEqual({
        kind: 'file',
        path: '/run/secrets/sso',
        createIfMissing: true,
      });
      expect(
        loadConfig({ DATABASE_URL: 'postgres://sso@db/sso', SECRET_KEY_FILE: '/run/secrets/sso' }).secretKey,
      ).toEqual({ kind: 'file', path: '/run/secrets/sso', createIfMissing: false });
    });
  });

  describe('second factor and key-encryption key (docs/interface.md#second-factor)', () => {
    it('requires a second factor of admins by default; MFA_REQUIRED_GROUPS lists groups, empty means none', () => {
      expect(loadConfig({}).mfaRequiredGroups).toEqual(['admin']);
      expect(loadConfig({ MFA_REQUIRED_GROUPS: 'admin, member' }).mfaRequiredGroups).toEqual([
        'admin',
        'member',
      ]);
      expect(loadConfig({ MFA_REQUIRED_GROUPS: '' }).mfaRequiredGroups).toEqual([]);
    });

    it('keeps the key-encryption key in secret.key beside the SQLite file unless SECRET_KEY is set', () => {
      expect(loadConfig({ DATABASE_URL: 'sqlite:/srv/sso/db.sqlite' }).secretKey).toEqual({
        kind: 'file',
        path: '/srv/sso/secret.key',
        createIfMissing: true,
      });
      const value = 'k'.repeat(32);
      expect(loadConfig({ SECRET_KEY: value }).secretKey).toEqual({ kind: 'value', value });
    });

    it.each([
      [{ MFA_REQUIRED_GROUPS: 'Admins!' }, /^MFA_REQUIRED_GROUPS must be group names/],
      [{ SECRET_KEY: 'short' }, /^SECRET_KEY must be at least 32 characters/],
      [
        { SECRET_KEY: 'k'.repeat(32), SECRET_KEY_FILE: '/k' },
        /^set SECRET_KEY or SECRET_KEY_FILE, not both$/,
      ],
    ])('%j → %s', (env, message) => {
      expect(problem(env)).toMatch(message);
    });
  });

  describe('bad values stop the start with a one-line message naming the variable', () => {
    it.each([
      [{ PORT: 'abc' }, /^PORT must be a whole number from 0 to 65535, got "abc"$/],
      [{ PORT: '65536' }, /^PORT .*65535.*"65536"/],
      [{ PORT: '-1' }, /^PORT .*"-1"/],
      [{ PORT: '80.5' }, /^PORT .*"80.5"/],
      [{ ACCESS_TOKEN_TTL: '0' }, /^ACCESS_TOKEN_TTL must be a whole number from 60 to 31536000, got "0"$/],
      [{ ACCESS_TOKEN_TTL: '2h' }, /^ACCESS_TOKEN_TTL .*"2h"/],
      [{ REFRESH_TOKEN_TTL: '1e9' }, /^REFRESH_TOKEN_TTL .*"1e9"/],
      [{ SESSION_TTL: '59' }, /^SESSION_TTL .*"59"/],
      [{ BASE_URL: 'sso.example.edu' }, /^BASE_URL must be an absolute http\(s\) URL/],
      [{ BASE_URL: 'ftp://sso.example.edu' }, /^BASE_URL must start with http:\/\/ or https:\/\//],
      [
        { BASE_URL: 'https://sso.example.edu/?x=1' },
        /^BASE_URL must not carry a query, fragment or credentials/,
      ],
      [{ BASE_URL: 'https://sso.example.edu/#/auth' }, /^BASE_URL must not carry/],
      [{ BASE_URL: 'https://user:pw@sso.example.edu' }, /^BASE_URL must not carry/],
      [
        { DATABASE_URL: 'mysql://x' },
        /^DATABASE_URL must be sqlite:<file path> or postgres:\/\/.*"mysql:\/\/x"$/,
      ],
      [{ DATABASE_URL: 'sqlite:' }, /^DATABASE_URL "sqlite:" needs a file path/],
      [{ DATABASE_URL: 'postgres://[bad' }, /^DATABASE_URL is not a valid postgres:\/\/ URL$/],
      [
        { LOG_LEVEL: 'verbose' },
        /^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"$/,
      ],
      [
        { TRUST_PROXY: 'maybe' },
        /^TRUST_PROXY must be false, a number of hops, or a comma-separated list .*"maybe"$/,
      ],
      [{ TRUST_PROXY: '10.0.0.0/33' }, /^TRUST_PROXY must be false, a number of hops.*"10.0.0.0\/33"$/],
      [{ TRUST_PROXY: '10.0.0.1,' }, /^TRUST_PROXY must be false, a number of hops/],
      [{ TRUST_PROXY: '11' }, /^TRUST_PROXY must be at most 10 hops, got "11"$/],
      [{ METRICS_TOKEN: 'short' }, /^METRICS_TOKEN must be at least 16 characters without spaces$/],
      [{ HOST: 'local host' }, /^HOST must be an IP address or host name/],
      [{ DATABASE_URL: 'postgres://sso@db/sso' }, /^SECRET_KEY is required with PostgreSQL/],
      [{ SECRET_KEY: 'short' }, /^SECRET_KEY must be at least 32 characters/],
      [
        { DATABASE_URL: 'postgres://sso@db/sso', SECRET_KEY: SECRET, DATABASE_QUERY_TIMEOUT_MS: '5s' },
        /^DATABASE_QUERY_TIMEOUT_MS must be a whole number from 0 to 3600000, got "5s"$/,
      ],
      [
        { DATABASE_URL: 'postgres://sso@db/sso', SECRET_KEY: SECRET, DATABASE_CONNECT_TIMEOUT_MS: '0' },
        /^DATABASE_CONNECT_TIMEOUT_MS must be a whole number from 100 to 3600000/,
      ],
      [{ SECRET_KEY: SECRET, SECRET_KEY_FILE: '/k' }, /^set SECRET_KEY or SECRET_KEY_FILE, not both$/],
    ])('%j → %s', (env, message) => {
      const text = problem(env);
      expect(text).toMatch(message);
      expect(text).not.toContain('\n');
    });

    it('never prints a database password in its message', () => {
      const text = problem({ DATABASE_URL: 'mysql://admin:hunter2@db/sso' });
      expect(text).toMatch(/^DATABASE_URL/);
      expect(text).not.toContain('hunter2');
    });
  });

  describe('branding', () => {
    it('is neutral by default: no name, logo, colour or helpdesk', () => {
      expect(loadConfig({}).branding).toEqual({
        name: undefined,
        nameZh: undefined,
        logoUrl: undefined,
        logoFile: undefined,
        color: undefined,
        helpdesk: undefined,
      });
    });

    it('reads BRAND_NAME, BRAND_LOGO_URL, BRAND_COLOR (lower-cased) and HELPDESK', () => {
      expect(
        loadConfig({
          BRAND_NAME: ' Experimental School ',
          BRAND_NAME_ZH: ' 实验中学 ',
          BRAND_LOGO_URL: '/static/logo.svg',
          BRAND_COLOR: '#1F5F8B',
          HELPDESK: 'IT office, room 101, ext. 4321',
        }).branding,
      ).toEqual({
        name: 'Experimental School',
        nameZh: '实验中学',
        logoUrl: '/static/logo.svg',
        logoFile: undefined,
        color: '#1f5f8b',
        helpdesk: 'IT office, room 101, ext. 4321',
      });
    });

    it('serves BRAND_LOGO_FILE at /v1/branding/logo', () => {
      expect(loadConfig({ BRAND_LOGO_FILE: '/etc/campus-sso/logo.png' }).branding).toMatchObject({
        logoUrl: '/v1/branding/logo',
        logoFile: '/etc/campus-sso/logo.png',
      });
    });

    it('accepts a data:image URL as the logo', () => {
      const url = 'data:image/svg+xml;base64,PHN2Zy8+';
      expect(loadConfig({ BRAND_LOGO_URL: url }).branding.logoUrl).toBe(url);
    });

    it.each([
      [{ BRAND_COLOR: 'red' }, /^BRAND_COLOR must be a colour #rrggbb/],
      [{ BRAND_COLOR: '#ffcc00' }, /^BRAND_COLOR #ffcc00 is too light: 1\.\d\d:1 against white/],
      [
        { BRAND_LOGO_URL: 'https://cdn.example.com/logo.png' },
        /^BRAND_LOGO_URL must be a path on this server/,
      ],
      [{ BRAND_LOGO_URL: '//cdn.example.com/logo.png' }, /^BRAND_LOGO_URL must be a path on this server/],
      [{ BRAND_LOGO_URL: 'data:text/html,<script>' }, /^BRAND_LOGO_URL must be a path on this server/],
      [{ BRAND_LOGO_FILE: '/logo.exe' }, /^BRAND_LOGO_FILE must be a \.png/],
      [
        { BRAND_LOGO_URL: '/a.png', BRAND_LOGO_FILE: '/b.png' },
        /^set BRAND_LOGO_URL or BRAND_LOGO_FILE, not both$/,
      ],
      [{ BRAND_NAME: 'x'.repeat(65) }, /^BRAND_NAME must be at most 64 characters$/],
      [{ BRAND_NAME_ZH: '校'.repeat(65) }, /^BRAND_NAME_ZH must be at most 64 characters$/],
      [{ HELPDESK: 'call\u0007us' }, /^HELPDESK must not contain control characters$/],
    ])('%j → %s', (env, message) => {
      expect(problem(env)).toMatch(message);
    });
  });
});
