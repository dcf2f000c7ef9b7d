/**
 * The writes that are on disk before they are answered: user, app and role changes (docs/architecture.md#storage).
 */
import { sql } from 'kysely';
import type { AnyColumn, Compilable, CompiledQuery, Insertable, Kysely, Updateable } from 'kysely';
import type { Connection } from './connection.js';
import type { Database } from './schema.js';
import { whileBusy } from './sqlite-busy.js';

/**
 * Runs `queries` as one transaction that is on disk before it resolves: user and app changes (users.ts,
 * apps.ts). On SQLite every other commit runs at `synchronous = NORMAL` (open-store.ts), which survives a crash
 * of the process but, on a power loss, may lose the commits since the last checkpoint (the checkpointer runs
 * every second); these run at `synchronous = FULL`, which flushes the WAL file at the commit. PostgreSQL
 * flushes every commit already. Answers the rows each query changed.
 *
 * Why only these: a lost token or session costs a user one more sign-in, but a lost password change, group
 * change, disabled account or newly registered app (whose secret was shown once) is a silent security or
 * support problem. Measured on the development VM (150 MB database, WAL, single-row commits): 0.011 ms per
 * commit at NORMAL, 0.185 ms at FULL; a real disk's flush takes 1–10 ms. Those changes are rare (admin
 * actions, a password re-hash at a user's first sign-in), so they pay it; the hot paths (codes, tokens,
 * sessions) would pay it on every request, so they do not.
 *
 * Inside `store.transaction` the queries run in its transaction, which commits as durably (transactions.ts).
 */
export async function writeDurably(
  connection: Connection,
  queries: readonly CompiledQuery[],
): Promise<number[]> {
  if (connection.inTransaction === true) {
    const changes: number[] = [];
    for (const query of queries) {
      changes.push(Number((await connection.db.executeQuery(query)).numAffectedRows ?? 0n));
    }
    return changes;
  }
  if (connection.kind === 'postgres') {
    const run = async (db: Pick<Kysely<Database>, 'executeQuery'>): Promise<number[]> => {
      const changes: number[] = [];
      for (const query of queries) changes.push(Number((await db.executeQuery(query)).numAffectedRows ?? 0n));
      return changes;
    };
    return queries.length === 1 ? run(connection.db) : connection.db.transaction().execute(run);
  }
  const { database } = connection;
  // The flush blocks the thread: let the I/O already waiting have its turn first (and a run of these writes
  // never starves the event loop, as better-sqlite3 alone would never yield).
  await new Promise((resolve) => setImmediate(resolve));
  // Kysely's one SQLite connection, held: no Kysely transaction is open on it while this runs.
  const write = database.transaction(() =>
    queries.map((query) => database.prepare(query.sql).run(...query.parameters).changes),
  );
  return connection.db.connection().execute(() =>
    // Tried again on a timer while another process holds the write lock (sqlite-busy.ts).
    whileBusy(() => {
      // better-sqlite3 is synchronous: from FULL to NORMAL nothing else runs, so exactly this commit is FULL.
      database.pragma('synchronous = FULL');
      try {
        return write.immediate();
      } finally {
        database.pragma('synchronous = NORMAL');
      }
    }),
  );
}

/** One write, run as `writeDurably` runs it; answers whether it changed a row. */
export async function writeOneDurably(connection: Connection, query: Compilable): Promise<boolean> {
  const [changes = 0] = await writeDurably(connection, [query.compile()]);
  return changes > 0;
}

/** Inserts `row` unless `table` holds one with its `key` already, as `writeDurably` writes; answers whether it did. */
export function insertDurablyIfAbsent<T extends keyof Database>(
  connection: Connection,
  table: T,
  key: AnyColumn<Database, T>,
  row: Insertable<Database[T]>,
): Promise<boolean> {
  const query = connection.db
    .insertInto(table)
    .values(row)
    .onConflict((oc) => oc.column(key).doNothing());
  return writeOneDurably(connection, query);
}

/**
 * Sets `changes` on the row of `table` whose `key` is `value`, as `writeDurably` writes; answers whether
 * there is such a row (with no change to make, by reading it).
 */
export async function updateDurably<T extends keyof Database>(
  connection: Connection,
  table: T,
  key: AnyColumn<Database, T>,
  value: Database[T][AnyColumn<Database, T>],
  changes: Updateable<Database[T]>,
): Promise<boolean> {
  const where = sql<boolean>`${sql.ref(key)} = ${value}`;
  const set = Object.entries(changes).map(([column, to]) => sql`${sql.ref(column)} = ${to}`);
  if (set.length === 0) {
    const found = await sql`select 1 from ${sql.table(table)} where ${where}`.execute(connection.db);
    return found.rows.length > 0;
  }
  const update = sql`update ${sql.table(table)} set ${sql.join(set)} where ${where}`;
  return writeOneDurably(connection, { compile: () => update.compile(connection.db) });
}
