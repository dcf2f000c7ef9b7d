/**
 * Which databases the storage-facing suites run on. SQLite always; PostgreSQL at TEST_DATABASE_URL. When
 * PostgreSQL is unreachable, a local run skips its half with a clear message, but a CI run (CI=true) fails:
 * a green CI must mean both databases were tested.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { it } from 'vitest';
import { openStore } from '../../src/storage/open-store.js';
import type { Store } from '../../src/storage/store.js';
import { type DatabaseKind, TEST_DATABASE_URL, freshPostgresSchema } from './server.js';

export const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

async function probePostgres(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Why PostgreSQL at TEST_DATABASE_URL cannot be used, or undefined when it can. */
export const postgresProblem: string | undefined = await probePostgres();

/**
 * Called first in each database's suite (by describeEachDatabase in ./fixture.ts, which every suite on both
 * databases goes through): answers true (and registers one clearly named skipped test) when this database's
 * suite must be skipped. Never skips under CI: the suite then fails instead.
 */
export function skipUnreachable(database: DatabaseKind): boolean {
  if (database !== 'postgres' || postgresProblem === undefined || IN_CI) return false;
  const why = `PostgreSQL at ${TEST_DATABASE_URL} is unreachable (${postgresProblem}); set TEST_DATABASE_URL to test it (with CI=true this is a failure)`;
  console.warn(`campus-sso tests: skipping the PostgreSQL suite: ${why}`);
  it.skip(why, () => undefined);
  return true;
}

/** Fails loudly (instead of a bare connection error) when CI runs without PostgreSQL. */
export function assertReachable(database: DatabaseKind): void {
  if (database === 'postgres' && postgresProblem !== undefined) {
    throw new Error(`PostgreSQL at ${TEST_DATABASE_URL} is unreachable under CI: ${postgresProblem}`);
  }
}

export interface OpenedStore {
  readonly store: Store;
  /** The DATABASE_URL of this store (`sqlite:<file>` or a postgres URL with its own search_path). */
  readonly url: string;
  /** Closes the store and removes its database. */
  dispose(): Promise<void>;
}

/** A fresh, empty, unmigrated database of this kind: a temp SQLite file or a fresh PostgreSQL schema. */
export async function openFreshStore(database: DatabaseKind): Promise<OpenedStore> {
  assertReachable(database);
  if (database === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'campus-sso-store-'));
    const file = join(dir, 'store.sqlite');
    const url = `sqlite:${file}`;
    const store = await openStore({ kind: 'sqlite', file, url });
    return {
      store,
      url,
      async dispose() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = await freshPostgresSchema();
  const store = await openStore({ kind: 'postgres', url: schema.url });
  return {
    store,
    url: schema.url,
    async dispose() {
      await store.close();
      await schema.drop();
    },
  };
}
