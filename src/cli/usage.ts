import { parseArgs, type ParseArgsConfig } from 'node:util';

export const USAGE = `usage: campus-sso <command> [options]

commands:
  serve                                          start the server (applies migrations first)
  migrate                                        apply database migrations and exit
  user add --uin N --group G --password-stdin [--role R:TAG ...]
                                                 create a user (G: admin, member or user);
                                                 the password is read from standard input;
                                                 --role (repeatable) gives a role for a group
                                                 tag, e.g. helpdesk:class-2026-3 (R: helpdesk
                                                 or auditor)
  user roles --uin N [--role R:TAG ...]          replace a user's roles (none given: remove them)
  app add --name N --emoji E --redirect-uri U [--redirect-uri U2 ...] [--cas-service URL ...] [--device]
          [--client-credentials --scope S [--scope S2 ...]]
                                                 register an OAuth application; prints
                                                 {"client_id","client_secret"} as JSON;
                                                 --cas-service (repeatable) registers a CAS
                                                 service URL (then --redirect-uri is optional);
                                                 --device allows the device grant (RFC 8628),
                                                 and then no --redirect-uri is needed;
                                                 --client-credentials makes it a service account
                                                 (RFC 6749 section 4.4; no --redirect-uri needed)
                                                 whose tokens may carry each --scope S
  app list                                       the apps, one JSON line each: client_id, name,
                                                 emoji, disabled, redirect_uris, cas_services,
                                                 device_grant, client_credentials, allowed_scopes
  import-campux --sqlite FILE | --mongo-export DIR [--keep-redirect-uri URI ...]
                                                 import users, apps and running bans from the
                                                 previous system (its SQLite file, or the files
                                                 mongoexport wrote for account, oauth_app, ban_list);
                                                 the report lists each redirect URI it dropped, and
                                                 why; --keep-redirect-uri keeps one as it was
  users disable-dormant --days N [--apply]
                                                 list (one JSON line each, then a summary line)
                                                 the enabled accounts not signed in to for N days
                                                 (never signed in: counted from creation); with
                                                 --apply, disable them (never the last admin)
  ldap sync [--apply]                            compare the school's directory with its users here:
                                                 one JSON line per change (create, update, disable),
                                                 then a summary line; with --apply, make the changes
                                                 (never deletes, never touches local users)
  backup FILE                                    copy the SQLite database to FILE, safe while serving
  restore FILE                                   replace the SQLite database with the backup FILE
                                                 (stop every server first; it refuses otherwise)
  check                                          check the installation, one line per check: the
                                                 database (SQLite integrity_check, PostgreSQL
                                                 reachable), migrations current, signing keys and
                                                 TOTP secrets open with the key; exit 0 or 1
  keys rotate                                    make a new id_token signing key pair active; the old
                                                 keys stay published until their id_tokens expire
  keys list                                      the signing keys, one JSON line each: kid, alg,
                                                 created_at, status (active, retiring, retired)

Configuration comes from environment variables: PORT, HOST, BASE_URL, DATABASE_URL, ACCESS_TOKEN_TTL,
SHUTDOWN_TIMEOUT, AUDIT_RETENTION_DAYS,
SECRET_KEY (required with PostgreSQL) or SECRET_KEY_FILE, LDAP_URL and the other LDAP_ settings, ...
(see docs/interface.md#configuration).`;

/** Bad arguments: the message and the usage on stderr, exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Where a command prints its lines (standard output). */
export type Output = (line: string) => void;

/** A command's `--name value` options: an unknown option or any positional argument is an error. */
export function parseOptions<const O extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: O,
) {
  return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
}
