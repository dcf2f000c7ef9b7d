/**
 * The school's directory settings (docs/interface.md#configuration): read and checked once at start-up; a
 * missing CA file, a filter without {uin} or an unreadable password file stops the start with one line.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

const dir = mkdtempSync(join(tmpdir(), 'campus-sso-ldap-config-'));
const passwordFile = join(dir, 'bind-password');
writeFileSync(passwordFile, 'bind secret\n');
const caFile = join(dir, 'ca.pem');
writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BASE = {
  LDAP_URL: 'ldap://ldap.school.test',
  LDAP_CA_FILE: caFile,
  LDAP_BIND_DN: 'cn=campus-sso,ou=services,dc=school,dc=test',
  LDAP_BIND_PASSWORD_FILE: passwordFile,
  LDAP_USER_BASE: 'ou=people,dc=school,dc=test',
};

function problem(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('LDAP_ settings', () => {
  it('has no directory unless LDAP_URL is set', () => {
    expect(loadConfig({}).ldap).toBeUndefined();
  });

  it('reads ldap:// with StartTLS, the default filter, attributes and timeout, and strips one trailing newline of the password', () => {
    const ldap = loadConfig(BASE).ldap;
    expect(ldap).toMatchObject({
      url: 'ldap://ldap.school.test',
      startTls: true,
      bindPassword: 'bind secret',
      userFilter: '(&(objectClass=inetOrgPerson)(uid={uin}))',
      attributes: { uin: 'uid', name: 'cn', email: 'mail', groups: 'memberOf' },
      timeoutMs: 5000,
      syncIntervalSeconds: undefined,
    });
    expect(ldap?.ca).toContain('BEGIN CERTIFICATE');
  });

  it('keeps everything of the password but one trailing newline', () => {
    const file = join(dir, 'two-newlines');
    writeFileSync(file, ' pass word \n\n');
    expect(loadConfig({ ...BASE, LDAP_BIND_PASSWORD_FILE: file }).ldap?.bindPassword).toBe(' pass word \n');
  });

  it('reads ldaps:// without StartTLS, and the Active Directory attributes', () => {
    const ldap = loadConfig({
      ...BASE,
      LDAP_URL: 'ldaps://dc1.school.test:636',
      LDAP_USER_FILTER: '(&(objectClass=user)(sAMAccountName={uin}))',
      LDAP_ATTR_UIN: 'sAMAccountName',
      LDAP_ATTR_NAME: 'displayName',
      LDAP_TIMEOUT_MS: '2000',
      LDAP_SYNC_INTERVAL: '3600',
    }).ldap;
    expect(ldap).toMatchObject({
      url: 'ldaps://dc1.school.test:636',
      startTls: false,
      attributes: { uin: 'sAMAccountName', name: 'displayName' },
      timeoutMs: 2000,
      syncIntervalSeconds: 3600,
    });
  });

  it('refuses a missing CA file', () => {
    expect(problem({ ...BASE, LDAP_CA_FILE: join(dir, 'nope.pem') })).toMatch(
      /^LDAP_CA_FILE ".*nope\.pem" cannot be read: no such file$/,
    );
  });

  it('refuses a filter without {uin}', () => {
    expect(problem({ ...BASE, LDAP_USER_FILTER: '(uid=*)' })).toMatch(
      /^LDAP_USER_FILTER must contain \{uin\}/,
    );
  });

  it('refuses an unreadable or missing password file', () => {
    expect(problem({ ...BASE, LDAP_BIND_PASSWORD_FILE: join(dir, 'missing') })).toMatch(
      /^LDAP_BIND_PASSWORD_FILE ".*missing" cannot be read: no such file$/,
    );
    // A directory is not a readable file either (root reads any mode).
    expect(problem({ ...BASE, LDAP_BIND_PASSWORD_FILE: dir })).toMatch(
      /^LDAP_BIND_PASSWORD_FILE .* cannot be read/,
    );
    const empty = join(dir, 'empty');
    writeFileSync(empty, '\n');
    chmodSync(empty, 0o600);
    expect(problem({ ...BASE, LDAP_BIND_PASSWORD_FILE: empty })).toMatch(/is empty$/);
  });

  it('refuses other schemes, a path, and missing required settings', () => {
    expect(problem({ ...BASE, LDAP_URL: 'http://ldap.school.test' })).toMatch(
      /^LDAP_URL must start with ldap:\/\//,
    );
    expect(problem({ ...BASE, LDAP_URL: 'ldap://ldap.school.test/dc=x' })).toMatch(/^LDAP_URL must be only/);
    expect(problem({ ...BASE, LDAP_BIND_DN: '' })).toMatch(/^LDAP_BIND_DN is required/);
    expect(problem({ ...BASE, LDAP_USER_BASE: '' })).toMatch(/^LDAP_USER_BASE is required/);
    expect(problem({ ...BASE, LDAP_TIMEOUT_MS: 'soon' })).toMatch(/^LDAP_TIMEOUT_MS must be a whole number/);
    expect(problem({ ...BASE, LDAP_SYNC_INTERVAL: '5' })).toMatch(
      /^LDAP_SYNC_INTERVAL must be 0 \(off\) or at least 60/,
    );
    expect(problem({ ...BASE, LDAP_ATTR_UIN: 'uid)(x' })).toMatch(/^LDAP_ATTR_UIN must be an attribute name/);
    expect(problem({ LDAP_BIND_DN: 'cn=x' })).toMatch(/^LDAP_BIND_DN is set but LDAP_URL is not/);
  });
});
