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
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDatabase } from '../storage/sqlite-driver.js';
import type { Clock } from '../clock.js';
import type { Store } from '../storage/store.js';
import { isUserGroup } from '../shared/users.js';
import { truncatedAppName } from '../shared/apps.js';
import { sha256Hex } from './crypto.js';
import { NO_LOGOUT_URIS } from './apps.js';
import { isSingleEmoji } from './emoji.js';
import { isArgon2idHash } from './passwords.js';
import {
  type RedirectUriProblem,
  canonicalRedirectUri,
  redirectUriProblem as redirectUriRule,
} from '../shared/redirect-uris.js';
import { MAX_REDIRECT_URIS, redirectUriProblem } from './redirect-uris.js';
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

type Row = Record<string, unknown>;

const USER_TABLES = ['account_pos', 'accounts', 'account_p_os', 'users'];
const APP_TABLES = ['o_auth_app_pos', 'oauth_app_pos', 'oauth_apps', 'o_auth_apps', 'apps'];
const BAN_TABLES = ['ban_infos', 'ban_info', 'ban_lists'];
/** A sign-in can never match this: users whose old hash is not argon2id must have their password reset. */
const UNUSABLE_PASSWORD = '!campux-import: password must be reset';

function findTable(db: BetterSqlite3.Database, candidates: string[], needed: string[]): string | undefined {
  const tables = db.prepare("select name from sqlite_master where type = 'table'").all() as {
    name: string;
  }[];
  const names = new Set(tables.map((t) => t.name));
  for (const name of [...candidates, ...names]) {
    if (!names.has(name)) continue;
    const columns = (
      db.prepare(`pragma table_info("${name.replace(/"/g, '""')}")`).all() as { name: string }[]
    ).map((c) => c.name);
    if (needed.every((n) => columns.includes(n))) return name;
  }
  return undefined;
}

/** GORM stores times as text (`2024-04-18 08:49:37.275+08:00`, CST) or, in some versions, as numbers. */
export function parseCampuxTime(value: unknown, fallback: number): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value < 1e12 ? value * 1000 : value;
  if (typeof value === 'string' && value.trim() !== '') {
    let text = value.trim();
    // "2024-04-18 08:49:37.275848+08:00" → ISO form JavaScript parses; trim sub-millisecond digits.
    text = text
      .replace(' ', 'T')
      .replace(/(\.\d{3})\d+/, '$1')
      .replace(/ ?([+-]\d{2})(\d{2})$/, '$1:$2');
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) text += '+08:00';
    const parsed = Date.parse(text);
    if (Number.isFinite(parsed)) return parsed;
  }
  return fallback;
}

/**
 * Campux's `util.StrArray` is stored as `json.Marshal` output; Go's SQLite driver binds that `[]byte` as a
 * BLOB even though GORM declares the column `text`, so the value arrives as bytes. Text (older hand-made
 * rows), an array (MongoDB) and a blank-separated list are accepted too.
 */
export function parseRedirectUris(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((u): u is string => typeof u === 'string');
  const text = value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value;
  if (typeof text !== 'string' || text.trim() === '') return [];
  const trimmed = text.trim();
  if (trimmed.startsWith('[') || trimmed === 'null') {
    try {
      return parseRedirectUris(JSON.parse(trimmed) as unknown);
    } catch {
      return [];
    }
  }
  return trimmed.split(/[\s,]+/).filter((u) => u !== '');
}

/** The rows of one Campux install, whichever database it kept them in. */
interface CampuxRows {
  readonly source: string;
  readonly accounts: Row[] | undefined;
  readonly apps: Row[] | undefined;
  readonly bans: Row[];
}

function readSqlite(file: string): CampuxRows {
  const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    const userTable =
      findTable(db, USER_TABLES, ['uin', 'pwd']) ?? findTable(db, USER_TABLES, ['uin', 'password']);
    const appTable = findTable(db, APP_TABLES, ['client_id', 'client_secret']);
    const banTable = findTable(db, BAN_TABLES, ['uin', 'end_time']);
    const all = (table: string | undefined): Row[] | undefined =>
      table === undefined ? undefined : (db.prepare(`select * from "${table}"`).all() as Row[]);
    return { source: file, accounts: all(userTable), apps: all(appTable), bans: all(banTable) ?? [] };
  } finally {
    db.close();
  }
}

/**
 * MongoDB Extended JSON (v2, relaxed or canonical, and the v1 forms older `mongoexport` wrote) to plain
 * values: `{"$oid"}` → string, `{"$date"}` → epoch milliseconds, `{"$numberLong"}` and the other numbers →
 * number, `{"$binary"}` → bytes.
 */
export function fromExtendedJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromExtendedJson);
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.length === 1 || (keys.length === 2 && '$binary' in object)) {
    const [key] = keys;
    const inner = object[key as string];
    switch (key) {
      case '$oid':
      case '$symbol':
        return String(inner);
      case '$numberLong':
      case '$numberInt':
      case '$numberDouble':
      case '$numberDecimal':
        return Number(inner);
      case '$date': {
        const plain = fromExtendedJson(inner);
        if (typeof plain === 'number') return plain;
        // v1 wrote offsets without a colon: 2024-04-18T08:49:37.275+0800
        const parsed = Date.parse(String(plain).replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
        return Number.isFinite(parsed) ? parsed : undefined;
      }
      case '$binary': {
        const base64 =
          typeof inner === 'object' && inner !== null ? (inner as { base64?: unknown }).base64 : inner;
        return Buffer.from(String(base64 ?? ''), 'base64');
      }
    }
  }
  return Object.fromEntries(keys.map((key) => [key, fromExtendedJson(object[key])]));
}

/** One `mongoexport` output file: JSON lines by default, one JSON array with `--jsonArray`. */
function readMongoExportFile(file: string): Row[] {
  const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  const documents: unknown[] = [];
  if (text.trimStart().startsWith('[')) {
    documents.push(...(JSON.parse(text) as unknown[]));
  } else {
    text.split('\n').forEach((line, index) => {
      if (line.trim() === '') return;
      try {
        documents.push(JSON.parse(line));
      } catch {
        throw new Error(`${file} line ${index + 1} is not JSON (was it written by mongoexport?)`);
      }
    });
  }
  return documents.map((document) => fromExtendedJson(document) as Row);
}

/** Collection names as Campux's MongoDB manager spells them (backend/database/mongo.go). */
const MONGO_FILES = { accounts: 'account', apps: 'oauth_app', bans: 'ban_list' } as const;

function readMongoExport(dir: string): CampuxRows {
  const find = (collection: string): string | undefined =>
    [`${collection}.json`, `${collection}.jsonl`, `${collection}.ndjson`]
      .map((name) => join(dir, name))
      .find((path) => existsSync(path));
  const read = (collection: string): Row[] | undefined => {
    const file = find(collection);
    return file === undefined ? undefined : readMongoExportFile(file);
  };
  return {
    source: dir,
    accounts: read(MONGO_FILES.accounts),
    apps: read(MONGO_FILES.apps),
    bans: read(MONGO_FILES.bans) ?? [],
  };
}

/** Per user, the latest end of a ban that has not ended at `now` (Campux: `end_time > now` blocks sign-in). */
function activeBans(rows: Row[], now: number): Map<number, { reason: string; until: number }> {
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

/** Imports a Campux SQLite file (`--sqlite FILE`). */
export async function importCampux(
  store: Store,
  clock: Clock,
  file: string,
  options: CampuxImportOptions = {},
): Promise<CampuxImportReport> {
  const rows = readSqlite(file);
  if (!rows.accounts && !rows.apps) {
    throw new Error(`${file} has neither a Campux accounts table nor an OAuth apps table`);
  }
  return importRows(store, clock, rows, options);
}

/** Imports what `mongoexport` wrote for a Campux MongoDB install (`--mongo-export DIR`). */
export async function importCampuxMongoExport(
  store: Store,
  clock: Clock,
  dir: string,
  options: CampuxImportOptions = {},
): Promise<CampuxImportReport> {
  const rows = readMongoExport(dir);
  if (!rows.accounts && !rows.apps) {
    throw new Error(
      `${dir} has neither account.json nor oauth_app.json; export them with ` +
        'mongoexport --db=DB --collection=account --out=DIR/account.json (and oauth_app, ban_list)',
    );
  }
  return importRows(store, clock, rows, options);
}

async function importRows(
  store: Store,
  clock: Clock,
  rows: CampuxRows,
  options: CampuxImportOptions,
): Promise<CampuxImportReport> {
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
  const keep = new Set(options.keepRedirectUris ?? []);
  const bans = activeBans(rows.bans, clock.now());
  if (rows.accounts) {
    for (const row of rows.accounts) {
      const uin = typeof row.uin === 'bigint' ? Number(row.uin) : Number(row.uin);
      if (!isValidUin(uin)) {
        report.users.failed.push({ uin: row.uin, reason: 'uin is not a positive integer up to 2^53-1' });
        continue;
      }
      const group = String(row.user_group ?? 'user');
      if (!isUserGroup(group)) {
        report.users.failed.push({ uin, reason: `unknown user_group "${String(row.user_group)}"` });
        continue;
      }
      const hash = String(row.pwd ?? row.password ?? '');
      const usable = isArgon2idHash(hash);
      if (!usable)
        report.users.failed.push({ uin, reason: 'password hash is not argon2id: imported, must be reset' });
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
      if (inserted) report.users.created++;
      else report.users.existing++;
      if (ban) {
        // A user imported by an earlier run, before bans were imported, is disabled now.
        if (!inserted) await store.users.update(uin, { disabled: true });
        report.users.banned.push({ uin, reason: ban.reason, until: new Date(ban.until).toISOString() });
      }
    }
  }
  if (rows.apps) {
    for (const row of rows.apps) {
      const clientId = typeof row.client_id === 'string' ? row.client_id : '';
      const secret = typeof row.client_secret === 'string' ? row.client_secret : '';
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(clientId) || secret === '') {
        report.apps.failed.push({
          client_id: row.client_id,
          reason: 'missing or malformed client_id or client_secret',
        });
        continue;
      }
      // The app-name rule (src/shared/apps.ts): cut to its length in code points, never inside a character.
      const name = truncatedAppName(String(row.name ?? clientId)) || clientId;
      const emoji = typeof row.emoji === 'string' && isSingleEmoji(row.emoji) ? row.emoji : '🔑';
      const redirectUris: string[] = [];
      for (const uri of parseRedirectUris(row.redirect_uris ?? row.redirect_uri)) {
        const problem = redirectUriProblem(uri);
        const drop = (reason: string): void =>
          void report.apps.dropped_redirect_uris.push({ client_id: clientId, uri, reason });
        if (redirectUris.includes(uri)) drop('listed twice');
        else if (redirectUris.length >= MAX_REDIRECT_URIS)
          drop(`more than ${MAX_REDIRECT_URIS} redirect URIs: register it in place of another`);
        else if (problem === undefined) redirectUris.push(uri);
        else if (keep.has(uri) && mayBeKept(uri)) {
          redirectUris.push(uri);
          report.apps.kept_redirect_uris.push({ client_id: clientId, uri, reason: problem });
        } else drop(problem);
      }
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
      if (inserted) report.apps.created++;
      else report.apps.existing++;
      let current = inserted ? redirectUris : ((await store.apps.find(clientId))?.redirectUris ?? []);
      if (current.length === 0 && redirectUris.length > 0) {
        // Imported by an earlier run that could not read the BLOB: give the app its URIs now.
        await store.apps.update(clientId, { redirectUris });
        current = redirectUris;
      }
      if (current.length === 0) report.apps.without_redirect_uris.push({ client_id: clientId, name });
    }
  }
  return report;
}
