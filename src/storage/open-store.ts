import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { SqliteDatabase } from './sqlite-driver.js';
import { Kysely, PostgresDialect, SqliteAdapter } from 'kysely';
import pg from 'pg';
import { type DatabaseConfig, DEFAULT_POSTGRES_TIMEOUTS, type PostgresTimeouts } from '../config/config.js';
import { mustDiscardConnection } from './database-errors.js';
import { PostgresQueries } from './postgres-pool.js';
import type { Database } from './schema.js';
import { SqlStore } from './sql-store.js';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';
import { withStatementCache } from './statement-cache.js';
import type { Store } from './store.js';
import { GatedSqliteDialect, SqliteGate } from './transactions.js';

/**
 * docs/interface.md#resources: uins exceed 2^31, so they are BIGINT; `pg` answers BIGINT as a string unless told otherwise.
 * Every BIGINT here (uins up to 2^53−1, epoch milliseconds, counts) fits a JavaScript number exactly.
 */
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

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
  // Checkpoints run on a timer between requests (sqlite-checkpointer.ts), never inside a commit; the WAL
  // file is truncated back to 64 MiB after each one should a burst have grown it.
  database.pragma('wal_autocheckpoint = 0');
  database.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
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
 * PostgreSQL connections that fail fast and heal (docs/operations.md#when-the-database-is-unavailable): every
 * query has a client-side deadline (postgres-pool.ts) and the server cancels long statements itself; TCP
 * keepalive finds idle connections to a vanished server; a connection that breaks or times out is closed,
 * never reused, so after a failover the pool fills with fresh connections by itself.
 */
function openPostgres(url: string, timeouts: PostgresTimeouts): Store {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: timeouts.connectMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: timeouts.keepAliveDelayMs,
    // pg sends nothing for a timeout of 0, so the server's own setting (e.g. the role's) applies.
    ...(timeouts.statementMs > 0 ? { statement_timeout: timeouts.statementMs } : {}),
    ...(timeouts.idleInTransactionMs > 0
      ? { idle_in_transaction_session_timeout: timeouts.idleInTransactionMs }
      : {}),
  });
  // An idle client's network error must not crash the process; the pool drops that client.
  pool.on('error', () => undefined);
  // pg-pool removes its own error listener while a client is checked out, and a connection that breaks
  // then (mid-query) emits 'error': without a listener of its own for the client's whole life, that error
  // is unhandled and ends the process. The query in flight fails with the same error, which is reported.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const queries = new PostgresQueries(pool, timeouts.queryMs);
  // A connection found broken or silent is rarely alone (a failover, a proxy restart): probe every idle
  // one at once, so the dead ones are all found within one query timeout, not one request after another.
  let sweeping = false;
  pool.on('release', (error: Error | undefined) => {
    if (sweeping || error === undefined || !mustDiscardConnection(error)) return;
    sweeping = true;
    const probes = Array.from({ length: pool.idleCount }, () =>
      queries.query({ text: 'select 1' }).catch(() => undefined),
    );
    void Promise.all(probes).finally(() => {
      sweeping = false;
    });
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: queries.forKysely() }) });
  return new SqlStore({ kind: 'postgres', db, pool: queries });
}

/** Opens the configured database (it is not migrated here: call `store.migrate()`). */
export function openStore(config: DatabaseConfig): Store {
  return config.kind === 'sqlite'
    ? openSqlite(config.file)
    : openPostgres(config.url, config.timeouts ?? DEFAULT_POSTGRES_TIMEOUTS);
}
