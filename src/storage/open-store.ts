import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config/config.js';
import type { Database } from './schema.js';
import { SqlStore } from './sql-store.js';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';
import type { Store } from './store.js';

/**
 * docs/interface.md#resources: uins exceed 2^31, so they are BIGINT; `pg` answers BIGINT as a string unless told otherwise.
 * Every BIGINT here (uins up to 2^53−1, epoch milliseconds, counts) fits a JavaScript number exactly.
 */
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

function openSqlite(file: string): Store {
  const path = resolve(file);
  mkdirSync(dirname(path), { recursive: true });
  const database = new SqliteDatabase(path);
  // WAL lets readers run beside the writer; NORMAL sync is durable across process crashes in WAL mode.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  // Checkpoints run on a timer between requests (sqlite-checkpointer.ts), never inside a commit; the WAL
  // file is truncated back to 64 MiB after each one should a burst have grown it.
  database.pragma('wal_autocheckpoint = 0');
  database.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  const checkpointer = new SqliteCheckpointer(database);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return new SqlStore({ kind: 'sqlite', db, database }, () => checkpointer.close());
}

function openPostgres(url: string): Store {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
  });
  // An idle client's network error must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return new SqlStore({ kind: 'postgres', db, pool });
}

/** Opens the configured database (it is not migrated here: call `store.migrate()`). */
export function openStore(config: DatabaseConfig): Store {
  return config.kind === 'sqlite' ? openSqlite(config.file) : openPostgres(config.url);
}
