/**
 * Import from the previous system, Campux (SPEC §1, §8). Its SQLite file (made by GORM) holds accounts
 * (`account_pos`: uin, pwd — an argon2id PHC hash —, user_group, created_at) and OAuth apps
 * (`o_auth_app_pos`: name, emoji, client_id, client_secret — a plaintext UUID —, created_at, and in later
 * versions redirect_uris). Users keep their password hashes, apps their client_id and secret (hashed here).
 * Idempotent: what exists already is left alone and reported as such.
 */
import SqliteDatabase from 'better-sqlite3';
import type { Clock } from '../clock.js';
import type { Store, UserGroup } from '../storage/store.js';
import { USER_GROUPS } from '../storage/store.js';
import { sha256Hex } from './crypto.js';
import { isSingleEmoji } from './emoji.js';
import { isArgon2idHash } from './passwords.js';
import { redirectUriProblem } from './redirect-uris.js';
import { isValidUin } from './users.js';

export interface CampuxImportReport {
  readonly users: { created: number; existing: number; failed: { uin: unknown; reason: string }[] };
  readonly apps: {
    created: number;
    existing: number;
    failed: { client_id: unknown; reason: string }[];
    /** Apps that had no (valid) redirect URIs: they refuse authorization until an admin registers them. */
    without_redirect_uris: { client_id: string; name: string }[];
  };
}

type Row = Record<string, unknown>;

const USER_TABLES = ['account_pos', 'accounts', 'account_p_os', 'users'];
const APP_TABLES = ['o_auth_app_pos', 'oauth_app_pos', 'oauth_apps', 'o_auth_apps', 'apps'];
/** A sign-in can never match this: users whose old hash is not argon2id must have their password reset. */
const UNUSABLE_PASSWORD = '!campux-import: password must be reset';

function findTable(db: SqliteDatabase.Database, candidates: string[], needed: string[]): string | undefined {
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

function parseRedirectUris(value: unknown): string[] {
  if (typeof value !== 'string' || value.trim() === '') return [];
  const text = value.trim();
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      return Array.isArray(parsed) ? parsed.filter((u): u is string => typeof u === 'string') : [];
    } catch {
      return [];
    }
  }
  return text.split(/[\s,]+/).filter((u) => u !== '');
}

export async function importCampux(store: Store, clock: Clock, file: string): Promise<CampuxImportReport> {
  const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  const report: CampuxImportReport = {
    users: { created: 0, existing: 0, failed: [] },
    apps: { created: 0, existing: 0, failed: [], without_redirect_uris: [] },
  };
  try {
    const userTable =
      findTable(db, USER_TABLES, ['uin', 'pwd']) ?? findTable(db, USER_TABLES, ['uin', 'password']);
    const appTable = findTable(db, APP_TABLES, ['client_id', 'client_secret']);
    if (!userTable && !appTable) {
      throw new Error(`${file} has neither a Campux accounts table nor an OAuth apps table`);
    }
    if (userTable) {
      for (const row of db.prepare(`select * from "${userTable}"`).all() as Row[]) {
        const uin = typeof row.uin === 'bigint' ? Number(row.uin) : Number(row.uin);
        if (!isValidUin(uin)) {
          report.users.failed.push({ uin: row.uin, reason: 'uin is not a positive integer up to 2^53-1' });
          continue;
        }
        const group = String(row.user_group ?? 'user') as UserGroup;
        if (!USER_GROUPS.includes(group)) {
          report.users.failed.push({ uin, reason: `unknown user_group "${String(row.user_group)}"` });
          continue;
        }
        const hash = String(row.pwd ?? row.password ?? '');
        const usable = isArgon2idHash(hash);
        if (!usable)
          report.users.failed.push({ uin, reason: 'password hash is not argon2id: imported, must be reset' });
        const inserted = await store.users.insert({
          uin,
          passwordHash: usable ? hash : UNUSABLE_PASSWORD,
          userGroup: group,
          createdAt: parseCampuxTime(row.created_at, clock.now()),
          disabled: false,
        });
        if (inserted) report.users.created++;
        else report.users.existing++;
      }
    }
    if (appTable) {
      for (const row of db.prepare(`select * from "${appTable}"`).all() as Row[]) {
        const clientId = typeof row.client_id === 'string' ? row.client_id : '';
        const secret = typeof row.client_secret === 'string' ? row.client_secret : '';
        if (!/^[A-Za-z0-9_-]{1,64}$/.test(clientId) || secret === '') {
          report.apps.failed.push({
            client_id: row.client_id,
            reason: 'missing or malformed client_id or client_secret',
          });
          continue;
        }
        const name =
          String(row.name ?? clientId)
            .trim()
            .slice(0, 64) || clientId;
        const emoji = typeof row.emoji === 'string' && isSingleEmoji(row.emoji) ? row.emoji : '🔑';
        const redirectUris = parseRedirectUris(row.redirect_uris ?? row.redirect_uri)
          .filter((u) => redirectUriProblem(u) === undefined)
          .slice(0, 10);
        const inserted = await store.apps.insert({
          clientId,
          name,
          emoji,
          secretHash: sha256Hex(secret),
          redirectUris,
          createdAt: parseCampuxTime(row.created_at, clock.now()),
          disabled: false,
          allowRefreshTokens: true,
        });
        if (inserted) report.apps.created++;
        else report.apps.existing++;
        const current = inserted ? redirectUris : ((await store.apps.find(clientId))?.redirectUris ?? []);
        if (current.length === 0) report.apps.without_redirect_uris.push({ client_id: clientId, name });
      }
    }
    return report;
  } finally {
    db.close();
  }
}
