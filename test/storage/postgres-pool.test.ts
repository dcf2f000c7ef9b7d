/**
 * The PostgreSQL pool's query deadline and connection hygiene (docs/operations.md#when-the-database-is-unavailable),
 * against the real PostgreSQL, directly and through a TCP proxy the test stalls.
 */
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { isDatabaseUnavailable, mustDiscardConnection } from '../../src/storage/database-errors.js';
import { PostgresQueries, QueryTimeout } from '../../src/storage/postgres-pool.js';
import { describeEachDatabase } from '../helpers/fixture.js';
import { TEST_DATABASE_URL } from '../helpers/server.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

const DEADLINE_MS = 400;

const backendPid = async (queries: PostgresQueries): Promise<number> =>
  (await queries.query<{ pid: number }>({ text: 'select pg_backend_pid() as pid' })).rows[0]?.pid ?? -1;

/** The error `promise` rejects with, and how long it took. */
async function failure(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  try {
    await promise;
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
  throw new Error('expected a failure, got an answer');
}

describeEachDatabase(
  'PostgresQueries',
  () => {
    let proxy: TcpProxy;
    let pool: pg.Pool;
    let queries: PostgresQueries;

    beforeAll(async () => {
      const target = new URL(TEST_DATABASE_URL);
      proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    });
    afterAll(async () => {
      await proxy.close();
    });
    beforeEach(() => {
      proxy.restore();
      pool = new pg.Pool({ connectionString: proxy.route(TEST_DATABASE_URL), max: 2 });
      pool.on('error', () => undefined);
      pool.on('connect', (client) => client.on('error', () => undefined));
      queries = new PostgresQueries(pool, DEADLINE_MS);
    });
    afterEach(async () => {
      proxy.restore();
      await pool.end();
    });

    it('answers a statement and gives its connection back to the pool for the next one', async () => {
      const first = await backendPid(queries);
      expect(first).toBeGreaterThan(0);
      expect(await backendPid(queries)).toBe(first);
      expect(pool.totalCount).toBe(1);
      expect(pool.idleCount).toBe(1);
    });

    it("keeps the connection after a statement's own error, which it reports as it is", async () => {
      const before = await backendPid(queries);
      const { error } = await failure(queries.query({ text: 'select 1 / 0' }));
      expect((error as { code?: string }).code).toBe('22012');
      expect(isDatabaseUnavailable(error)).toBe(false);
      expect(await backendPid(queries)).toBe(before);
    });

    it('fails a statement unanswered at the deadline as an outage, and closes its connection', async () => {
      const before = await backendPid(queries);
      const { error, ms } = await failure(queries.query({ text: 'select pg_sleep(3)' }));
      expect(error).toBeInstanceOf(QueryTimeout);
      expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 5);
      expect(ms).toBeLessThan(2_500);
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(mustDiscardConnection(error)).toBe(true);
      // The connection that still owes the sleep's answer is gone; the next statement gets a new one.
      const after = await backendPid(queries);
      expect(after).not.toBe(before);
      expect(pool.totalCount).toBe(1);
    });

    it('fails at the deadline while the network is silent, and works on new connections once it is back', async () => {
      const before = await backendPid(queries);
      proxy.stall();
      const { error, ms } = await failure(queries.query({ text: 'select 1' }));
      expect(error).toBeInstanceOf(QueryTimeout);
      expect(ms).toBeLessThan(2_500);
      proxy.restore();
      const after = await backendPid(queries);
      expect(after).not.toBe(before);
    });

    it('has no deadline when it is 0', async () => {
      const patient = new PostgresQueries(pool, 0);
      const { rows } = await patient.query<{ done: string }>({ text: "select pg_sleep(0.6), 'yes' as done" });
      expect(rows[0]?.done).toBe('yes');
    });

    it("closes a Kysely checkout whose statement missed the deadline; the transaction's rollback fails at once", async () => {
      const db = new Kysely<Record<string, never>>({
        dialect: new PostgresDialect({ pool: queries.forKysely() }),
      });
      const before = await backendPid(queries);
      const { error, ms } = await failure(
        db.transaction().execute(async (trx) => {
          await sql`select pg_backend_pid()`.execute(trx);
          await sql`select pg_sleep(3)`.execute(trx);
        }),
      );
      expect(error).toBeInstanceOf(QueryTimeout);
      expect(ms).toBeLessThan(2_500);
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
      expect(rows[0]?.pid).toBeGreaterThan(0);
      expect(rows[0]?.pid).not.toBe(before);
      expect(pool.totalCount).toBe(1);
    });
  },
  ['postgres'],
);
