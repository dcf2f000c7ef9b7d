/**
 * The SQL of the Campux import (src/domain/campux-import.ts; docs/interface.md#command-line): the tables of
 * a Campux SQLite file (made by GORM), found by their columns whatever GORM named them, read whole.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDatabase } from './sqlite-driver.js';

/** One Campux row or MongoDB document, its columns as they came. */
export type CampuxRow = Record<string, unknown>;

/** The rows of one Campux install, whichever database it kept them in. */
export interface CampuxRows {
  readonly source: string;
  readonly accounts: CampuxRow[] | undefined;
  readonly apps: CampuxRow[] | undefined;
  readonly bans: CampuxRow[];
}

const USER_TABLES = ['account_pos', 'accounts', 'account_p_os', 'users'];
const APP_TABLES = ['o_auth_app_pos', 'oauth_app_pos', 'oauth_apps', 'o_auth_apps', 'apps'];
const BAN_TABLES = ['ban_infos', 'ban_info', 'ban_lists'];

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

/** Reads a Campux SQLite file (`--sqlite FILE`) read-only. */
export function readSqlite(file: string): CampuxRows {
  const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    const userTable =
      findTable(db, USER_TABLES, ['uin', 'pwd']) ?? findTable(db, USER_TABLES, ['uin', 'password']);
    const appTable = findTable(db, APP_TABLES, ['client_id', 'client_secret']);
    const banTable = findTable(db, BAN_TABLES, ['uin', 'end_time']);
    const all = (table: string | undefined): CampuxRow[] | undefined =>
      table === undefined ? undefined : (db.prepare(`select * from "${table}"`).all() as CampuxRow[]);
    return { source: file, accounts: all(userTable), apps: all(appTable), bans: all(banTable) ?? [] };
  } finally {
    db.close();
  }
}
