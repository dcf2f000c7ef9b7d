/**
 * What every entity module of this folder is built from: the open database, the Kysely instance over it, the
 * queries every table asks alike (a row or rows by a column, an update by key, a request moved on, the expired
 * rows' purge), how values are stored in columns, and the helpers its hand-written hot-path statements share
 * (docs/architecture.md#storage). Writes that must be on disk before they are answered: durable-writes.ts; the
 * hot paths' prepared statements: hot-path-statements.ts.
 *
 * Most queries go through Kysely and are the same SQL on both databases. A query on a benchmarked path
 * (client authentication, code exchange, user information) is written by hand instead, as an explicit
 * `{ sqlite, postgres }` pair beside the entity's other queries: on SQLite a prepared better-sqlite3 statement
 * (the query builder costs ~10× the query itself there), on PostgreSQL a named prepared statement, coalesced
 * per event-loop turn where many requests ask at once (turn-batcher.ts, docs/architecture.md#batching).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, type Kysely, type RawBuilder, type Selectable, sql } from 'kysely';
import type pg from 'pg';
import type { Database } from './schema.js';
import type { SqliteGate } from './transactions.js';

/** What a PostgreSQL hot path sends its statements to: the pool (postgres-pool.ts), or one transaction's client. */
export interface PostgresQuerier {
  query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<Pick<pg.QueryResult<R>, 'rows'>>;
}

/**
 * The open database. `inTransaction`: this is one transaction of `store.transaction` (transactions.ts), whose
 * repositories run every statement in it. On SQLite, `gate` is closed while any transaction is open on the one
 * connection: the hand-written statements, which do not go through Kysely's connection lock, wait for it
 * (a transaction's own repositories have none, they run inside it).
 */
export type Connection =
  | {
      readonly kind: 'sqlite';
      readonly db: Kysely<Database>;
      readonly database: BetterSqlite3.Database;
      readonly gate: SqliteGate | undefined;
      readonly inTransaction?: boolean;
    }
  | {
      readonly kind: 'postgres';
      readonly db: Kysely<Database>;
      readonly pool: PostgresQuerier;
      readonly inTransaction?: boolean;
    };

/** A hot path written by hand for each database; `F` is the function a repository method calls. */
export interface HotPath<F> {
  /** `gate`: what a write deferred to a later turn (a batch) must wait for; see Connection. */
  sqlite(database: BetterSqlite3.Database, gate: SqliteGate | undefined): F;
  postgres(pool: PostgresQuerier): F;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any function that answers a promise
type AsyncFunction = (...parameters: any[]) => Promise<unknown>;

/**
 * The connection's half of a hot path, built once when the repository is. On SQLite the statement waits while
 * a transaction is open on the connection (it would run inside it otherwise); when none is, that costs one
 * property read.
 */
export function forDialect<F extends AsyncFunction>(connection: Connection, hotPath: HotPath<F>): F {
  if (connection.kind === 'postgres') return hotPath.postgres(connection.pool);
  const { gate } = connection;
  const run = hotPath.sqlite(connection.database, gate);
  if (gate === undefined) return run;
  const gated = (...parameters: Parameters<F>): ReturnType<F> =>
    (gate.open ? run(...parameters) : gate.whenOpen().then(() => gated(...parameters))) as ReturnType<F>;
  return gated as unknown as F;
}

/** A transaction's client, as a hot path's PostgreSQL half uses the pool: every statement in the transaction. */
export function transactionQuerier(trx: Kysely<Database>): PostgresQuerier {
  return {
    async query<R extends pg.QueryResultRow>(config: pg.QueryConfig) {
      const result = await trx.executeQuery<R>(CompiledQuery.raw(config.text, config.values ?? []));
      return { rows: [...result.rows] };
    },
  };
}

/** The tables whose rows are dead once `expires_at` has passed, and are then only purged. */
type ExpiringTable =
  | 'authorization_codes'
  | 'access_tokens'
  | 'refresh_tokens'
  | 'pending_sign_ins'
  | 'webauthn_challenges'
  | 'device_authorizations'
  | 'phone_sign_ins'
  | 'service_tokens';

/** The tables of requests that wait for a decision: a `status` that moves on, and an `expires_at`. */
export type RequestTable = 'device_authorizations' | 'phone_sign_ins';

/**
 * What every repository of this folder is built on: the connection, the Kysely instance over it, and the
 * queries every table asks alike.
 */
export abstract class Repository {
  protected readonly db: Kysely<Database>;

  constructor(protected readonly connection: Connection) {
    this.db = connection.db;
  }

  /**
   * Runs `work` as one transaction; inside `store.transaction` (transactions.ts) it is already in one, so
   * `work` runs there and commits with it.
   */
  protected atomically<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.connection.inTransaction === true ? work(this.db) : this.db.transaction().execute(work);
  }

  /** The row of `table` whose unique `column` is `key`, mapped; undefined when there is none. */
  protected async findBy<T extends keyof Database, C extends keyof Database[T] & string, V>(
    table: T,
    column: C,
    key: Database[T][C],
    map: (row: Selectable<Database[T]>) => V,
  ): Promise<V | undefined> {
    const [row] = await this.rowsWhere(table, sql`${sql.ref(column)} = ${key}`);
    return row && map(row);
  }

  /** The rows of `table` whose `column` is `key`, in the order of `orderBy`, mapped. */
  protected async listBy<T extends keyof Database, C extends keyof Database[T] & string, V>(
    table: T,
    column: C,
    key: Database[T][C],
    orderBy: keyof Database[T] & string,
    map: (row: Selectable<Database[T]>) => V,
  ): Promise<V[]> {
    const rows = await this.rowsWhere(table, sql`${sql.ref(column)} = ${key} order by ${sql.ref(orderBy)}`);
    return rows.map(map);
  }

  /**
   * `select * from table where …`: the SQL Kysely's builder writes for findBy and listBy, whose types cannot
   * check a column of a table that is a parameter.
   */
  private async rowsWhere<T extends keyof Database>(
    table: T,
    where: RawBuilder<unknown>,
  ): Promise<Selectable<Database[T]>[]> {
    const query = sql<Selectable<Database[T]>>`select * from ${sql.table(table)} where ${where}`;
    return [...(await query.execute(this.db)).rows];
  }

  /** Sets `changes` on the row of `table` whose unique `column` is `key`. */
  protected async updateBy<T extends keyof Database, C extends keyof Database[T] & string>(
    table: T,
    column: C,
    key: Database[T][C],
    changes: Partial<Selectable<Database[T]>>,
  ): Promise<void> {
    await this.updateWhere(table, changes, sql`${sql.ref(column)} = ${key}`);
  }

  /**
   * Moves the request of `table` whose unique `column` is `key` on from status `from`, with `changes` (its new
   * status among them), if it is still in `from` and, given `now`, has not expired. One statement, so of two
   * racing moves only one finds it in `from`; answers whether this one did.
   */
  protected moveRequest<T extends RequestTable, C extends keyof Database[T] & string>(
    table: T,
    column: C,
    key: Database[T][C],
    from: string,
    changes: Partial<Selectable<Database[T]>>,
    now?: number,
  ): Promise<boolean> {
    const unexpired = now === undefined ? sql`` : sql` and expires_at > ${now}`;
    return this.updateWhere(
      table,
      changes,
      sql`${sql.ref(column)} = ${key} and status = ${from}${unexpired}`,
    );
  }

  /** `update table set … where …`, by hand as rowsWhere's query; answers whether a row changed. */
  private async updateWhere<T extends keyof Database>(
    table: T,
    changes: Partial<Selectable<Database[T]>>,
    where: RawBuilder<unknown>,
  ): Promise<boolean> {
    const assignments = Object.entries(changes)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => sql`${sql.ref(name)} = ${value}`);
    const result = await sql`update ${sql.table(table)} set ${sql.join(assignments)} where ${where}`.execute(
      this.db,
    );
    return (result.numAffectedRows ?? 0n) > 0n;
  }

  /** Deletes the rows of `table` that expired before `time`; answers how many. */
  protected async deleteExpired(table: ExpiringTable, time: number): Promise<number> {
    const result = await this.db.deleteFrom(table).where('expires_at', '<', time).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** Booleans are stored as 0/1 on both databases (schema.ts). */
export const bit = (value: boolean): number => (value ? 1 : 0);

/** A nullable number column (a time, a counter): null stays null. */
export const nullableNumber = (value: number | string | null | undefined): number | null =>
  value === null || value === undefined ? null : Number(value);

/** A JSON array of strings (group tags, redirect URIs, transports); most are empty, which skips the parse. */
export function parseList(json: string | null | undefined): string[] {
  return !json || json === '[]' ? [] : (JSON.parse(json) as string[]);
}

/** Whether an INSERT … ON CONFLICT DO NOTHING inserted its row. */
export function inserted(result: { numInsertedOrUpdatedRows?: bigint }): boolean {
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/** Whether an UPDATE or DELETE touched a row. */
export function changed(result: { numUpdatedRows?: bigint; numDeletedRows?: bigint }): boolean {
  return (result.numUpdatedRows ?? result.numDeletedRows ?? 0n) > 0n;
}
