/**
 * What `mongoexport` wrote for a Campux install that Campux's configuration migration moved to MongoDB: the
 * collections `account`, `oauth_app` and `ban_list`, with the fields of the SQLite tables
 * (src/domain/campux-import.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CampuxRow, CampuxRows } from '../storage/campux-sqlite.js';

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
function readMongoExportFile(file: string): CampuxRow[] {
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
  return documents.map((document) => fromExtendedJson(document) as CampuxRow);
}

/** Collection names as Campux's MongoDB manager spells them (backend/database/mongo.go). */
const MONGO_FILES = { accounts: 'account', apps: 'oauth_app', bans: 'ban_list' } as const;

export function readMongoExport(dir: string): CampuxRows {
  const find = (collection: string): string | undefined =>
    [`${collection}.json`, `${collection}.jsonl`, `${collection}.ndjson`]
      .map((name) => join(dir, name))
      .find((path) => existsSync(path));
  const read = (collection: string): CampuxRow[] | undefined => {
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
