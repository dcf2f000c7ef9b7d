/** The DataLoader-style batcher behind both databases' hot look-ups and code redemptions. */
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDatabase } from '../../src/storage/sqlite-driver.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TurnBatcher, sqliteTransaction } from '../../src/storage/turn-batcher.js';

/** An error as a database driver throws it, with its code. */
function databaseError(code: string): Error {
  return Object.assign(new Error(`failed with ${code}`), { code });
}

/** A loadMany that records each call's keys and answers each key doubled, or throws `failure`. */
function recorder(fail?: (keys: readonly number[]) => boolean, failure = databaseError('23505')) {
  const calls: number[][] = [];
  const loadMany = async (keys: readonly number[]): Promise<number[]> => {
    calls.push([...keys]);
    if (fail?.(keys)) throw failure;
    return keys.map((key) => key * 2);
  };
  return { calls, loadMany };
}

describe('TurnBatcher', () => {
  it('answers the loads of one turn with one call, each load its own value', async () => {
    const { calls, loadMany } = recorder();
    const batcher = new TurnBatcher(loadMany);
    expect(await Promise.all([1, 2, 3, 2].map((key) => batcher.load(key)))).toEqual([2, 4, 6, 4]);
    expect(calls).toEqual([[1, 2, 3, 2]]);
  });

  it('gives a later turn its own call', async () => {
    const { calls, loadMany } = recorder();
    const batcher = new TurnBatcher(loadMany);
    expect(await batcher.load(1)).toBe(2);
    expect(await batcher.load(2)).toBe(4);
    expect(calls).toEqual([[1], [2]]);
  });

  it('splits a turn larger than maxBatch', async () => {
    const { calls, loadMany } = recorder();
    const batcher = new TurnBatcher(loadMany, { maxBatch: 2 });
    expect(await Promise.all([1, 2, 3, 4, 5].map((key) => batcher.load(key)))).toEqual([2, 4, 6, 8, 10]);
    expect(calls).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('never puts two keys with the same identity into one call, keeping their order', async () => {
    const { calls, loadMany } = recorder();
    const batcher = new TurnBatcher(loadMany, { identity: (key) => String(key) });
    expect(await Promise.all([7, 8, 7, 7].map((key) => batcher.load(key)))).toEqual([14, 16, 14, 14]);
    expect(calls).toEqual([[7, 8], [7], [7]]);
  });

  it.each(['23505', '23503', 'SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_CONSTRAINT_UNIQUE'])(
    'lets a key that violates a constraint (%s) fail alone: the others are tried again one by one, in order',
    async (code) => {
      const { calls, loadMany } = recorder((keys) => keys.includes(13), databaseError(code));
      const batcher = new TurnBatcher(loadMany);
      const outcomes = await Promise.allSettled([1, 13, 3].map((key) => batcher.load(key)));
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(outcomes[0]).toEqual({ status: 'fulfilled', value: 2 });
      expect(calls).toEqual([[1, 13, 3], [1], [13], [3]]);
    },
  );

  it.each([
    ['the database is down', databaseError('ECONNREFUSED')],
    ['PostgreSQL is shutting down', databaseError('57P01')],
    ['SQLite is busy', databaseError('SQLITE_BUSY')],
    ['a plain error', new Error('boom')],
  ])("fails the whole batch at once when the failure is not one key's (%s)", async (_, failure) => {
    const { calls, loadMany } = recorder(() => true, failure);
    const batcher = new TurnBatcher(loadMany);
    const outcomes = await Promise.allSettled([1, 2, 3].map((key) => batcher.load(key)));
    expect(outcomes).toEqual([1, 2, 3].map(() => ({ status: 'rejected', reason: failure })));
    expect(calls).toEqual([[1, 2, 3]]);
  });
});

describe('TurnBatcher on SQLite (sqliteTransaction)', () => {
  let database: BetterSqlite3.Database;
  let transactions: number;
  const rows = (): string[] =>
    (database.prepare('select name from claims order by rowid').all() as { name: string }[]).map(
      (r) => r.name,
    );

  beforeEach(() => {
    database = new SqliteDatabase(':memory:');
    database.exec('create table claims (name text primary key)');
    transactions = 0;
  });
  afterEach(() => database.close());

  /** Inserts each key as a claim; a key 'explode' throws a plain error instead. */
  function claims() {
    const insert = database.prepare('insert into claims (name) values (?)');
    const loadMany = sqliteTransaction(database, undefined, (name: string) => {
      if (name === 'explode') throw new Error('not a constraint');
      return insert.run(name).changes;
    });
    return new TurnBatcher<string, number>(async (keys) => {
      transactions++;
      return loadMany(keys);
    });
  }

  it('writes the keys of one turn in one transaction and answers each after it committed', async () => {
    const batcher = claims();
    expect(await Promise.all(['a', 'b', 'c'].map((name) => batcher.load(name)))).toEqual([1, 1, 1]);
    expect(transactions).toBe(1);
    expect(rows()).toEqual(['a', 'b', 'c']);
  });

  it('lets a key that violates a constraint fail alone, the others committed in arrival order', async () => {
    database.exec("insert into claims (name) values ('taken')");
    const batcher = claims();
    const outcomes = await Promise.allSettled(['a', 'taken', 'b'].map((name) => batcher.load(name)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({
      code: 'SQLITE_CONSTRAINT_PRIMARYKEY',
    });
    expect(transactions).toBe(4);
    expect(rows()).toEqual(['taken', 'a', 'b']);
  });

  it('fails the whole turn, writing nothing, when a key fails for another reason', async () => {
    const batcher = claims();
    const outcomes = await Promise.allSettled(['a', 'explode', 'b'].map((name) => batcher.load(name)));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(transactions).toBe(1);
    expect(rows()).toEqual([]);
  });
});
