/**
 * The PostgreSQL pool as this folder uses it: every query has a client-side deadline, and a connection that
 * broke or missed one is closed, never reused (docs/operations.md#when-the-database-is-unavailable).
 *
 * The deadline is this module's own timer, not `pg`'s `query_timeout`. With `query_timeout` set, `pg` wraps
 * each query's callback in a closure of its own, and with that wrapper (as with `pg`'s promise API) each
 * query leaves objects that outlive two scavenges: 160–170 KB promoted to the old generation per scavenge
 * against 0–0.3 KB, on Node 20, 22 and 24 alike (`npm run bench:gc`), hence more old-generation collections
 * on the hot paths (docs/architecture.md#storage). Checking a connection out with a callback, querying it
 * with a callback and keeping the timer here promotes no more than having no deadline at all.
 */
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { mustDiscardConnection } from './database-errors.js';

/**
 * A query that did not answer within the deadline. Its message begins as `pg`'s own read timeout's does,
 * so it is classified alike: the database is unavailable, and the connection must be closed.
 */
export class QueryTimeout extends Error {
  override readonly name = 'QueryTimeout';

  constructor(ms: number) {
    super(`Query read timeout: no answer within ${ms} ms`);
  }
}

/** What the checked-out connection is told when it goes back: an error closes it instead. */
type Release = (error?: Error) => void;

/**
 * One query on a checked-out connection: `answered` gets its result, or `failed` its error, or QueryTimeout
 * after `timeoutMs` (0: no deadline). The answer that comes after the deadline is dropped. Callbacks all the
 * way: each caller wraps it in the one promise it returns.
 */
function queryWithDeadline<R extends pg.QueryResultRow>(
  client: pg.PoolClient,
  config: pg.QueryConfig,
  timeoutMs: number,
  answered: (result: pg.QueryResult<R>) => void,
  failed: (error: Error) => void,
): void {
  let late = false;
  const timer =
    timeoutMs > 0
      ? setTimeout(() => {
          late = true;
          failed(new QueryTimeout(timeoutMs));
        }, timeoutMs)
      : undefined;
  client.query<R>(config, (error, result) => {
    if (late) return;
    clearTimeout(timer);
    if (error) failed(error);
    else answered(result);
  });
}

/** The error to release a connection with: only one that means the connection can no longer be trusted. */
const discardingError = (error: Error): Error | undefined =>
  mustDiscardConnection(error) ? error : undefined;

export class PostgresQueries {
  /**
   * @param timeoutMs the client-side deadline of every query (0: none, the server's own settings apply).
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly timeoutMs: number,
  ) {}

  /** One statement on a connection of its own, which goes back to the pool when it answers. */
  query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>> {
    return new Promise((resolve, reject) => {
      this.pool.connect((connectError, client, release: Release) => {
        if (connectError || client === undefined) {
          reject(connectError ?? new Error('the pool gave no connection'));
          return;
        }
        queryWithDeadline<R>(
          client,
          config,
          this.timeoutMs,
          (result) => {
            release();
            resolve(result);
          },
          (error) => {
            release(discardingError(error));
            reject(error);
          },
        );
      });
    });
  }

  /** The pool as Kysely's PostgresDialect asks for it. */
  forKysely(): PostgresPool {
    return {
      connect: async () => new DiscardingClient(await this.pool.connect(), this.timeoutMs),
      end: () => this.pool.end(),
    };
  }
}

/** The pool's connection as Kysely's PostgresDialect uses it (it never asks for a cursor here). */
class DiscardingClient implements PostgresPoolClient {
  /** The connection-level failure of one of this checkout's queries: the connection is closed on release. */
  private failure: Error | undefined;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly timeoutMs: number,
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    sqlOrCursor: string | PostgresCursor<R>,
    parameters: ReadonlyArray<unknown> = [],
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sqlOrCursor !== 'string') throw new Error('cursors are not used with this pool');
    // A query after a failure of this checkout (a transaction's rollback) fails at once: it would only
    // queue behind the query that never answered.
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const config = { text: sqlOrCursor, values: [...parameters] };
    return new Promise((resolve, reject) => {
      queryWithDeadline(
        this.client,
        config,
        this.timeoutMs,
        (result) => resolve(result as unknown as PostgresQueryResult<R>),
        (error) => {
          this.failure ??= discardingError(error);
          reject(error);
        },
      );
    });
  }

  /**
   * pg-pool returns a released connection to the pool unless given an error, and Kysely gives none: a
   * connection whose query timed out still owes that answer, so without this the next request would queue
   * behind it on a connection that may be dead.
   */
  release(): void {
    this.client.release(this.failure);
  }
}
