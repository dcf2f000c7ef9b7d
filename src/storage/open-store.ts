import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { SqliteDatabase } from './sqlite-driver.js';
import { Kysely, SqliteAdapter } from 'kysely';
import { type DatabaseConfig, DEFAULT_POSTGRES_TIMEOUTS } from '../config/config.js';
import type { Database } from './schema.js';
import { SqlStore } from './sql-store.js';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';
import { withStatementCache } from './statement-cache.js';
import type { Store } from './store.js';
import { GatedSqliteDialect, SqliteGate } from './transactions.js';

/**
 * The gated SQLite dialect (transactions.ts), and its migrator runs the pending migrations in one transaction, as on PostgreSQL:
 * SQLite's DDL is transactional, Kysely's adapter just does not claim it. A migration that fails, or a
 * process killed mid-upgrade, then leaves the database as it was, never half-migrated
 * (docs/architecture.md#migrations). The flag means nothing else to Kysely.
 */
class TransactionalDdlSqliteDialect extends GatedSqliteDialect {
  override createAdapter(): SqliteAdapter {
    return new (class extends SqliteAdapter {
      override get supportsTransactionalDdl(): boolean {
        return true;
      }
    })();
  }
}

/** SQLite's page cache for the serving connection, in KiB (PRAGMA cache_size takes KiB when negative). */
const SQLITE_PAGE_CACHE_KIB = 4096;

function openSqlite(file: string): Store {
  const path = resolve(file);
  mkdirSync(dirname(path), { recursive: true });
  // A new database file is created owner-only (docs/operations.md): it holds every password hash. SQLite
  // gives the -wal and -shm files it creates beside it the database file's mode.
  closeSync(openSync(path, 'a', 0o600));
  const database = new SqliteDatabase(path);
  // WAL lets readers run beside the writer; NORMAL sync is durable across process crashes in WAL mode.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  // A lock another process holds is waited for on a timer, never asleep on the event loop (sqlite-busy.ts).
  database.pragma('busy_timeout = 0');
  database.pragma('foreign_keys = ON');
  // Checkpoints run on a timer between requests (sqlite-checkpointer.ts), never inside a commit. This
  // connection never truncates the WAL file either (-1: SQLite's default): on the bench VM's ext4 (mounted
  // with `discard`) the truncation at a WAL restart stopped the event loop for 100–165 ms; the checkpoint
  // worker shrinks a grown WAL instead, once writes have paused.
  database.pragma('wal_autocheckpoint = 0');
  database.pragma('journal_size_limit = -1');
  // The page cache is held in the process's own memory: better-sqlite3's build defaults it to 16 MB, which
  // the exchange rows of the bench fill (RSS minus V8's heap grew ~10 MB over them). The hot pages are few
  // (time-ordered keys append at the right edge of the B-trees), and user information over a million
  // tokens measured the same with 2 and 8 MiB (README, Performance); the OS caches the file's pages anyway.
  database.pragma(`cache_size = -${SQLITE_PAGE_CACHE_KIB}`);
  const checkpointer = new SqliteCheckpointer(database);
  // Transactions close the gate: the hand-written statements wait for it (transactions.ts).
  const gate = new SqliteGate();
  const db = new Kysely<Database>({
    dialect: new TransactionalDdlSqliteDialect({ database: withStatementCache(database) }, gate),
  });
  return new SqlStore({ kind: 'sqlite', db, database, gate }, () => checkpointer.close());
}

/**
 * Opens the configured database (it is not migrated here: call `store.migrate()`). The PostgreSQL side, and
 * with it `pg` (~1.5 MB of heap), is loaded only when the database is PostgreSQL.
 */
export async function openStore(config: DatabaseConfig): Promise<Store> {
  if (config.kind === 'sqlite') return openSqlite(config.file);
  const { openPostgres } = await import('./open-postgres.js');
  return openPostgres(config.url, config.timeouts ?? DEFAULT_POSTGRES_TIMEOUTS);
}
