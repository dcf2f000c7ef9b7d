/**
 * The statements of the hot paths, written by hand for each database (docs/architecture.md#storage): on SQLite a
 * better-sqlite3 statement prepared once and read raw, on PostgreSQL a named prepared statement coalesced per
 * event-loop turn (turn-batcher.ts). How a repository picks its database's half: `forDialect` in connection.ts.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { PostgresQuerier } from './connection.js';
import { isSqliteBusy, whileBusy } from './sqlite-busy.js';
import { TurnBatcher } from './turn-batcher.js';

/** A better-sqlite3 statement prepared on first use: the tables exist only once migrations have run. */
export function prepareOnFirstUse(
  database: BetterSqlite3.Database,
  sql: string,
): () => BetterSqlite3.Statement {
  let statement: BetterSqlite3.Statement | undefined;
  return () => (statement ??= database.prepare(sql));
}

/**
 * A function that turns a raw row (its values in the statement's column order) into the named row, written
 * as one object literal over the statement's own column names. better-sqlite3 builds a named row property by
 * property from C++, which for the 11 to 24 columns of the hot-path rows costs more than the query itself;
 * an object literal costs a fraction of that (docs/architecture.md#storage). The names come from the
 * prepared statement and are quoted with JSON.stringify, so no text of a request reaches the generated code.
 */
function rowBuilder(names: readonly string[]): (values: readonly unknown[]) => unknown {
  const fields = names.map((name, i) => `${JSON.stringify(name)}: values[${i}]`).join(', ');
  return new Function('values', `return { ${fields} };`) as (values: readonly unknown[]) => unknown;
}

/**
 * A SQLite look-up: the prepared statement's row for these parameters, mapped, or undefined when none matched. The
 * row is read raw and named by rowBuilder.
 */
export function preparedLookup<P extends readonly unknown[], R, V>(
  database: BetterSqlite3.Database,
  sql: string,
  map: (row: R) => V,
): (...parameters: P) => Promise<V | undefined> {
  let prepared:
    { statement: BetterSqlite3.Statement; named: (values: readonly unknown[]) => unknown } | undefined;
  const prepare = (): NonNullable<typeof prepared> => {
    const statement = database.prepare(sql).raw(true);
    return { statement, named: rowBuilder(statement.columns().map((column) => column.name)) };
  };
  return async (...parameters) => {
    const { statement, named } = (prepared ??= prepare());
    let values: unknown[] | undefined;
    try {
      values = statement.get(...parameters) as unknown[] | undefined;
    } catch (error) {
      // A read waits for a lock only in rare states (another process recovering the WAL): on a timer.
      if (!isSqliteBusy(error)) throw error;
      values = await whileBusy(() => statement.get(...parameters) as unknown[] | undefined);
    }
    return values && map(named(values) as R);
  };
}

export interface BatchedLookup<R, V> {
  /** The prepared statement's name. */
  readonly name: string;
  /** A query over `unnest($1, …) with ordinality as q(…, i)` ($n: each n-th parameter); rows carry `q.i`. */
  readonly text: string;
  readonly map: (row: R) => V;
}

/**
 * A PostgreSQL look-up coalesced per turn, called as its SQLite twin (preparedLookup) is: each call is answered
 * by the mapped row numbered with its 1-based position `i`, or undefined when none matched.
 */
export function batchedLookup<P extends readonly unknown[], R, V>(
  pool: PostgresQuerier,
  lookup: BatchedLookup<R, V>,
): (...parameters: P) => Promise<V | undefined> {
  const batcher = new TurnBatcher<P, V | undefined>(async (calls) => {
    const { rows } = await pool.query<R & pg.QueryResultRow & { i: number }>({
      name: lookup.name,
      text: lookup.text,
      values: (calls[0] ?? []).map((_, n) => calls.map((parameters) => parameters[n])),
    });
    const values = new Array<V | undefined>(calls.length).fill(undefined);
    for (const row of rows) values[Number(row.i) - 1] = lookup.map(row);
    return values;
  });
  return (...parameters) => batcher.load(parameters);
}
