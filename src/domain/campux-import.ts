/**
 * Import from the previous system, Campux (docs/interface.md#command-line). Its SQLite file (made by GORM)
 * holds accounts (`account_pos`: uin, pwd — an argon2id PHC hash —, user_group, created_at), OAuth apps
 * (`o_auth_app_pos`: name, emoji, client_id, client_secret — a plaintext UUID —, created_at, and in later
 * versions redirect_uris) and bans (`ban_infos`: uin, op, comment, start_time, end_time). Installs that
 * Campux's configuration migration moved to MongoDB keep the same fields in the collections `account`,
 * `oauth_app` and `ban_list`, read here from what `mongoexport` wrote.
 * Users keep their password hashes, apps their client_id and secret (hashed here); a user whose ban has not
 * ended is imported disabled. Idempotent: what exists already is left alone and reported as such.
 */
import type { Clock } from '../clock.js';
import type { Store } from '../storage/store.js';
import { type CampuxRow, type CampuxRows, readSqlite } from '../storage/campux-sqlite.js';
import { isUserGroup } from '../shared/users.js';
import { truncatedAppName } from '../shared/apps.js';
import { sha256Hex } from './crypto.js';
import { NO_LOGOUT_URIS } from './apps.js';
import { parseCampuxTime, parseRedirectUris } from './campux-values.js';
import { readMongoExport } from './campux-mongo-export.js';
import { isSingleEmoji } from './emoji.js';
import { isArgon2idHash } from './passwords.js';
import {
  type RedirectUriProblem,
  canonicalRedirectUri,
  redirectUriProblemCode as redirectUriRule,
} from '../shared/redirect-uris.js';
import { MAX_REDIRECT_URIS, redirectUriProblemMessage } from './redirect-uris.js';
import { isValidUin } from './users.js';

/** A Campux ban that had not ended: the user is disabled (there is no end date on a disabled account). */
export interface ImportedBan {
  readonly uin: number;
  readonly reason: string;
  /** When the ban would have ended in Campux (ISO 8601); an admin re-enables the user then. */
  readonly until: string;
}

export interface CampuxImportReport {
  readonly users: {
    created: number;
    existing: number;
    failed: { uin: unknown; reason: string }[];
    banned: ImportedBan[];
  };
  readonly apps: {
    created: number;
    existing: number;
    failed: { client_id: unknown; reason: string }[];
    /** Apps that had no (valid) redirect URIs: they refuse authorization until an admin registers them. */
    without_redirect_uris: { client_id: string; name: string }[];
    /** Every redirect URI not imported, and why: an app that still sends it would be refused (code 3). */
    dropped_redirect_uris: DroppedRedirectUri[];
    /** URIs the rules refuse that were kept as they were, because the operator asked (`--keep-redirect-uri`). */
    kept_redirect_uris: DroppedRedirectUri[];
  };
}

export interface DroppedRedirectUri {
  readonly client_id: string;
  readonly uri: string;
  readonly reason: string;
}

export interface CampuxImportOptions {
  /**
   * Campux-era redirect URIs to keep although the registration rules refuse them (docs/operations.md#moving-from-campux):
   * only a URI that is not in canonical form, or plain http to a host that is not loopback, may be kept.
   */
  readonly keepRedirectUris?: readonly string[];
}

/** The rules an operator may waive for a Campux-era URI: neither lets the URI mean something else. */
const WAIVABLE: readonly RedirectUriProblem[] = ['notCanonical', 'httpNotLoopback'];

/** Whether `uri` may be kept on the operator's word: it breaks a waivable rule and no other. */
function mayBeKept(uri: string): boolean {
  const rule = redirectUriRule(uri);
  if (rule === undefined || !WAIVABLE.includes(rule)) return false;
  const canonical = canonicalRedirectUri(uri);
  const again = canonical === undefined ? 'notAbsolute' : redirectUriRule(canonical);
  return again === undefined || WAIVABLE.includes(again);
}

/** A sign-in can never match this: users whose old hash is not argon2id must have their password reset. */
const UNUSABLE_PASSWORD = '!campux-import: password must be reset';

/** Per user, the latest end of a ban that has not ended at `now` (Campux: `end_time > now` blocks sign-in). */
function activeBans(rows: CampuxRow[], now: number): Map<number, { reason: string; until: number }> {
  const bans = new Map<number, { reason: string; until: number }>();
  for (const row of rows) {
    const uin = Number(row.uin);
    const until = parseCampuxTime(row.end_time, Number.NaN);
    if (!isValidUin(uin) || !Number.isFinite(until) || until <= now) continue;
    const known = bans.get(uin);
    if (known && known.until >= until) continue;
    bans.set(uin, { reason: String(row.comment ?? '').trim() || 'banned in Campux', until });
  }
  return bans;
}

/** An import from one kind of Campux source: a file, or a folder of exports. */
type CampuxImport = (
  store: Store,
  clock: Clock,
  source: string,
  options?: CampuxImportOptions,
) => Promise<CampuxImportReport>;

/** Imports a Campux SQLite file (`--sqlite FILE`). */
export const importCampux: CampuxImport = async (store, clock, file, options = {}) =>
  importRows(store, clock, readSqlite(file), options, {
    nothing: `${file} has neither a Campux accounts table nor an OAuth apps table`,
  });

/** Imports what `mongoexport` wrote for a Campux MongoDB install (`--mongo-export DIR`). */
export const importCampuxMongoExport: CampuxImport = async (store, clock, dir, options = {}) =>
  importRows(store, clock, readMongoExport(dir), options, {
    nothing:
      `${dir} has neither account.json nor oauth_app.json; export them with ` +
      'mongoexport --db=DB --collection=account --out=DIR/account.json (and oauth_app, ban_list)',
  });

/** Imports `rows`; a source with neither accounts nor apps is refused, saying so (`nothing`). */
async function importRows(
  store: Store,
  clock: Clock,
  rows: CampuxRows,
  options: CampuxImportOptions,
  { nothing }: { readonly nothing: string },
): Promise<CampuxImportReport> {
  if (!rows.accounts && !rows.apps) throw new Error(nothing);
  const report: CampuxImportReport = {
    users: { created: 0, existing: 0, failed: [], banned: [] },
    apps: {
      created: 0,
      existing: 0,
      failed: [],
      without_redirect_uris: [],
      dropped_redirect_uris: [],
      kept_redirect_uris: [],
    },
  };
  const bans = activeBans(rows.bans, clock.now());
  if (rows.accounts) {
    for (const row of rows.accounts) await importAccount(store, clock, row, bans, report.users);
  }
  if (rows.apps) {
    const keep = new Set(options.keepRedirectUris ?? []);
    for (const row of rows.apps) await importApp(store, clock, row, keep, report.apps);
  }
  return report;
}

/** One Campux account: its password hash kept, disabled while its ban lasts. */
async function importAccount(
  store: Store,
  clock: Clock,
  row: CampuxRow,
  bans: ReadonlyMap<number, { reason: string; until: number }>,
  report: CampuxImportReport['users'],
): Promise<void> {
  const uin = Number(row.uin);
  if (!isValidUin(uin)) {
    report.failed.push({ uin: row.uin, reason: 'uin is not a positive integer up to 2^53-1' });
    return;
  }
  const group = String(row.user_group ?? 'user');
  if (!isUserGroup(group)) {
    report.failed.push({ uin, reason: `unknown user_group "${String(row.user_group)}"` });
    return;
  }
  const hash = String(row.pwd ?? row.password ?? '');
  const usable = isArgon2idHash(hash);
  if (!usable) report.failed.push({ uin, reason: 'password hash is not argon2id: imported, must be reset' });
  const ban = bans.get(uin);
  const inserted = await store.users.insert({
    uin,
    passwordHash: usable ? hash : UNUSABLE_PASSWORD,
    userGroup: group,
    createdAt: parseCampuxTime(row.created_at, clock.now()),
    disabled: ban !== undefined,
    // The users' own passwords, from the previous system: nobody else knows them.
    mustChangePassword: false,
  });
  if (inserted) report.created++;
  else report.existing++;
  if (ban) {
    // A user imported by an earlier run, before bans were imported, is disabled now.
    if (!inserted) await store.users.update(uin, { disabled: true });
    report.banned.push({ uin, reason: ban.reason, until: new Date(ban.until).toISOString() });
  }
}

/** The app's redirect URIs that the registration rules (or the operator's word) let in; the others reported. */
function importedRedirectUris(
  clientId: string,
  row: CampuxRow,
  keep: ReadonlySet<string>,
  report: CampuxImportReport['apps'],
): string[] {
  const redirectUris: string[] = [];
  for (const uri of parseRedirectUris(row.redirect_uris ?? row.redirect_uri)) {
    const problem = redirectUriProblemMessage(uri);
    const drop = (reason: string): void =>
      void report.dropped_redirect_uris.push({ client_id: clientId, uri, reason });
    if (redirectUris.includes(uri)) drop('listed twice');
    else if (redirectUris.length >= MAX_REDIRECT_URIS)
      drop(`more than ${MAX_REDIRECT_URIS} redirect URIs: register it in place of another`);
    else if (problem === undefined) redirectUris.push(uri);
    else if (keep.has(uri) && mayBeKept(uri)) {
      redirectUris.push(uri);
      report.kept_redirect_uris.push({ client_id: clientId, uri, reason: problem });
    } else drop(problem);
  }
  return redirectUris;
}

/** One Campux OAuth app: its client_id and secret (hashed here) kept. */
async function importApp(
  store: Store,
  clock: Clock,
  row: CampuxRow,
  keep: ReadonlySet<string>,
  report: CampuxImportReport['apps'],
): Promise<void> {
  const clientId = typeof row.client_id === 'string' ? row.client_id : '';
  const secret = typeof row.client_secret === 'string' ? row.client_secret : '';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(clientId) || secret === '') {
    report.failed.push({
      client_id: row.client_id,
      reason: 'missing or malformed client_id or client_secret',
    });
    return;
  }
  // The app-name rule (src/shared/apps.ts): cut to its length in code points, never inside a character.
  const name = truncatedAppName(String(row.name ?? clientId)) || clientId;
  const emoji = typeof row.emoji === 'string' && isSingleEmoji(row.emoji) ? row.emoji : '🔑';
  const redirectUris = importedRedirectUris(clientId, row, keep, report);
  const inserted = await store.apps.insert({
    clientId,
    name,
    emoji,
    secretHash: sha256Hex(secret),
    redirectUris,
    createdAt: parseCampuxTime(row.created_at, clock.now()),
    disabled: false,
    allowRefreshTokens: true,
    allowedGroups: [],
    ...NO_LOGOUT_URIS,
  });
  if (inserted) report.created++;
  else report.existing++;
  let current = inserted ? redirectUris : ((await store.apps.find(clientId))?.redirectUris ?? []);
  if (current.length === 0 && redirectUris.length > 0) {
    // Imported by an earlier run that could not read the BLOB: give the app its URIs now.
    await store.apps.update(clientId, { redirectUris });
    current = redirectUris;
  }
  if (current.length === 0) report.without_redirect_uris.push({ client_id: clientId, name });
}
