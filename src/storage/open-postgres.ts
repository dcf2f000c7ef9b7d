import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { PostgresTimeouts } from '../config/config.js';
import { mustDiscardConnection } from './database-errors.js';
import { PostgresQueries } from './postgres-pool.js';
import type { Database } from './schema.js';
import { SqlStore } from './sql-store.js';
import type { Store } from './store.js';

/**
 * docs/interface.md#resources: uins exceed 2^31, so they are BIGINT; `pg` answers BIGINT as a string unless told otherwise.
 * Every BIGINT here (uins up to 2^53−1, epoch milliseconds, counts) fits a JavaScript number exactly.
 */
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

/**
 * PostgreSQL connections that fail fast and heal (docs/operations.md#when-the-database-is-unavailable): every
 * query has a client-side deadline (postgres-pool.ts) and the server cancels long statements itself; TCP
 * keepalive finds idle connections to a vanished server; a connection that breaks or times out is closed,
 * never reused, so after a failover the pool fills with fresh connections by itself.
 */
export function openPostgres(url: string, timeouts: PostgresTimeouts): Store {
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
