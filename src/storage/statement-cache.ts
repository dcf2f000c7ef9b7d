/**
 * Kysely's SQLite driver prepares every query it runs anew, and on a sign-in (a dozen throttle, session,
 * user and audit queries) preparing cost more than running: ~20 µs a statement under load, about 0.3 ms of
 * the sign-in's CPU outside the password hash (`npm run bench:ab`, docs/architecture.md#storage). This gives
 * Kysely the connection through a cache of prepared statements keyed by their SQL, so a query the builder
 * writes again finds its statement prepared.
 *
 * A better-sqlite3 statement is reusable once it has answered; one still being iterated (a streamed query
 * not yet read to its end) is `busy`, and a second user of the same SQL then gets a fresh statement. SQLite
 * re-prepares a cached statement by itself when a migration changed the schema under it. The cache holds the
 * most recently used statements, so SQL written with a varying number of parameters (an `in (…)` list) cannot
 * grow it without bound.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Distinct statements kept: the whole application writes a few hundred. */
const DEFAULT_CAPACITY = 500;

export function withStatementCache(
  database: BetterSqlite3.Database,
  capacity = DEFAULT_CAPACITY,
): SqliteDatabase {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => database.close(),
    prepare(sql) {
      const cached = statements.get(sql);
      if (cached !== undefined && !cached.busy) {
        statements.delete(sql);
        statements.set(sql, cached);
        return cached;
      }
      const statement = database.prepare(sql);
      // A busy statement stays with its reader; the fresh one takes its place for the next query.
      statements.delete(sql);
      statements.set(sql, statement);
      if (statements.size > capacity) {
        const oldest = statements.keys().next();
        if (oldest.done !== true) statements.delete(oldest.value);
      }
      return statement;
    },
  };
}
