/**
 * The school's directory (docs/interface.md#configuration, "The school's directory"; docs/operations.md#the-schools-directory-ldap--active-directory).
 * Read by `loadConfig` with the rest of the configuration. The CA file and the bind password file are read
 * here, once, so that a missing or unreadable file stops the start with one line instead of failing the first
 * sign-in.
 */
import { readFileSync } from 'node:fs';

export interface LdapAttributes {
  /** The attribute holding the uin (`uid`; `employeeNumber` or `sAMAccountName` on Active Directory). */
  readonly uin: string;
  readonly name: string;
  readonly email: string;
  /** DNs of the person's groups (`memberOf`); the first RDN value of each becomes a group tag. */
  readonly groups: string;
}

export interface LdapConfig {
  /** `ldap://host[:port]` (always upgraded with StartTLS before any bind) or `ldaps://host[:port]`. */
  readonly url: string;
  readonly startTls: boolean;
  /** PEM of the CA that signed the directory's certificate; undefined: the system's trusted CAs. */
  readonly ca: string | undefined;
  /** The file `ca` came from, for messages. */
  readonly caFile: string | undefined;
  /** The account campus-sso searches as. */
  readonly bindDn: string;
  /** Its password (LDAP_BIND_PASSWORD_FILE, one trailing newline stripped). Never logged. */
  readonly bindPassword: string;
  readonly userBase: string;
  /** An RFC 4515 filter with `{uin}` where the (escaped) uin goes. */
  readonly userFilter: string;
  readonly attributes: LdapAttributes;
  /** Each directory operation (connect, StartTLS, bind, search) fails after this long. */
  readonly timeoutMs: number;
  /** Seconds between automatic syncs; undefined: off (only `campus-sso ldap sync`). */
  readonly syncIntervalSeconds: number | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

/** A bad directory setting; `loadConfig` reports it as its ConfigError. */
export class LdapConfigError extends Error {
  override readonly name = 'LdapConfigError';
}

export const DEFAULT_USER_FILTER = '(&(objectClass=inetOrgPerson)(uid={uin}))';

const ATTRIBUTE = /^[A-Za-z][A-Za-z0-9-]*$|^\d+(\.\d+)+$/;

function text(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
}

function required(env: Env, name: string, example: string): string {
  const value = text(env, name);
  if (value === undefined) throw new LdapConfigError(`${name} is required with LDAP_URL, e.g. ${example}`);
  return value;
}

function readUrl(raw: string): { url: string; startTls: boolean } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new LdapConfigError(`LDAP_URL must be ldap://host[:port] or ldaps://host[:port], got "${raw}"`);
  }
  if (url.protocol !== 'ldap:' && url.protocol !== 'ldaps:') {
    throw new LdapConfigError(`LDAP_URL must start with ldap:// (StartTLS) or ldaps://, got "${raw}"`);
  }
  if (url.hostname === '' || url.username || url.password || (url.pathname !== '' && url.pathname !== '/')) {
    throw new LdapConfigError(`LDAP_URL must be only a scheme, host and port, got "${raw}"`);
  }
  if (url.search || url.hash)
    throw new LdapConfigError(`LDAP_URL must be only a scheme, host and port, got "${raw}"`);
  return { url: `${url.protocol}//${url.host}`, startTls: url.protocol === 'ldap:' };
}

function readFile(name: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String(code ?? error);
    throw new LdapConfigError(`${name} "${path}" cannot be read: ${why}`);
  }
}

function readCa(env: Env): { ca: string | undefined; caFile: string | undefined } {
  const file = text(env, 'LDAP_CA_FILE');
  if (file === undefined) return { ca: undefined, caFile: undefined };
  const ca = readFile('LDAP_CA_FILE', file);
  if (!ca.includes('-----BEGIN CERTIFICATE-----')) {
    throw new LdapConfigError(
      `LDAP_CA_FILE "${file}" holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
    );
  }
  return { ca, caFile: file };
}

function readBindPassword(env: Env): string {
  const file = required(env, 'LDAP_BIND_PASSWORD_FILE', '/etc/campus-sso/ldap-bind-password');
  // One trailing newline (as `echo` or an editor leaves it) is not part of the password; anything else is.
  const password = readFile('LDAP_BIND_PASSWORD_FILE', file).replace(/\r?\n$/, '');
  // An empty password would make the bind anonymous (RFC 4513 §5.1.2), which is not what was meant.
  if (password === '') throw new LdapConfigError(`LDAP_BIND_PASSWORD_FILE "${file}" is empty`);
  return password;
}

function readFilter(env: Env): string {
  const filter = text(env, 'LDAP_USER_FILTER') ?? DEFAULT_USER_FILTER;
  if (!filter.includes('{uin}')) {
    throw new LdapConfigError(
      `LDAP_USER_FILTER must contain {uin} where the uin goes, e.g. ${DEFAULT_USER_FILTER}, got "${filter}"`,
    );
  }
  if (!filter.startsWith('(') || !filter.endsWith(')')) {
    throw new LdapConfigError(
      `LDAP_USER_FILTER must be an LDAP filter in parentheses (RFC 4515), got "${filter}"`,
    );
  }
  let depth = 0;
  for (const char of filter.replace(/\\./g, '')) {
    depth += char === '(' ? 1 : char === ')' ? -1 : 0;
    if (depth < 0) break;
  }
  if (depth !== 0) throw new LdapConfigError(`LDAP_USER_FILTER has unbalanced parentheses: "${filter}"`);
  return filter;
}

function readAttribute(env: Env, name: string, fallback: string): string {
  const value = text(env, name) ?? fallback;
  if (!ATTRIBUTE.test(value)) {
    throw new LdapConfigError(`${name} must be an attribute name such as ${fallback}, got "${value}"`);
  }
  return value;
}

function readInteger(
  env: Env,
  name: string,
  fallback: number | undefined,
  min: number,
  max: number,
): number | undefined {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new LdapConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/** The directory settings, or undefined when LDAP_URL is unset (no directory: every user is local). */
export function readLdap(env: Env): LdapConfig | undefined {
  const rawUrl = text(env, 'LDAP_URL');
  if (rawUrl === undefined) {
    const stray = Object.keys(env).find((key) => key.startsWith('LDAP_') && text(env, key) !== undefined);
    if (stray !== undefined)
      throw new LdapConfigError(`${stray} is set but LDAP_URL is not: set LDAP_URL too`);
    return undefined;
  }
  const { url, startTls } = readUrl(rawUrl);
  const syncInterval = readInteger(env, 'LDAP_SYNC_INTERVAL', 0, 0, 7 * 24 * 3600) ?? 0;
  if (syncInterval > 0 && syncInterval < 60) {
    throw new LdapConfigError(
      `LDAP_SYNC_INTERVAL must be 0 (off) or at least 60 seconds, got "${syncInterval}"`,
    );
  }
  return {
    url,
    startTls,
    ...readCa(env),
    bindDn: required(env, 'LDAP_BIND_DN', 'cn=campus-sso,ou=services,dc=school,dc=edu'),
    bindPassword: readBindPassword(env),
    userBase: required(env, 'LDAP_USER_BASE', 'ou=people,dc=school,dc=edu'),
    userFilter: readFilter(env),
    attributes: {
      uin: readAttribute(env, 'LDAP_ATTR_UIN', 'uid'),
      name: readAttribute(env, 'LDAP_ATTR_NAME', 'cn'),
      email: readAttribute(env, 'LDAP_ATTR_EMAIL', 'mail'),
      groups: readAttribute(env, 'LDAP_ATTR_GROUPS', 'memberOf'),
    },
    timeoutMs: readInteger(env, 'LDAP_TIMEOUT_MS', 5000, 100, 120_000) ?? 5000,
    syncIntervalSeconds: syncInterval === 0 ? undefined : syncInterval,
  };
}
