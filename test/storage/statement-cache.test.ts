/**
 * docs/architecture.md#storage: Kysely's SQLite queries reuse their prepared statements. On a real SQLite
 * database (better-sqlite3, in memory) and through Kysely itself.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDatabase } from '../../src/storage/sqlite-driver.js';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withStatementCache } from '../../src/storage/statement-cache.js';

interface Tables {
  t: { id: number; name: string };
}

let database: BetterSqlite3.Database;
let prepared: string[];

beforeEach(() => {
  database = new SqliteDatabase(':memory:');
  database.exec('create table t (id integer primary key, name text not null)');
  database.exec("insert into t values (1, 'one'), (2, 'two'), (3, 'three')");
  // Counts the statements SQLite really prepares.
  prepared = [];
  const prepare = database.prepare.bind(database);
  database.prepare = ((sql: string) => {
    prepared.push(sql);
    return prepare(sql);
  }) as typeof database.prepare;
});

afterEach(() => {
  if (database.open) database.close();
});

describe('withStatementCache', () => {
  it('prepares a query the builder writes again only once, and answers it right each time', async () => {
    const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
    for (const id of [1, 2, 3, 1]) {
      const row = await db.selectFrom('t').select('name').where('id', '=', id).executeTakeFirst();
      expect(row?.name).toBe({ 1: 'one', 2: 'two', 3: 'three' }[id]);
    }
    await db.updateTable('t').set({ name: 'uno' }).where('id', '=', 1).execute();
    await db.updateTable('t').set({ name: 'dos' }).where('id', '=', 2).execute();
    expect(await db.selectFrom('t').select('name').orderBy('id').execute()).toEqual([
      { name: 'uno' },
      { name: 'dos' },
      { name: 'three' },
    ]);
    expect(prepared).toHaveLength(3);
    expect(new Set(prepared).size).toBe(3);
  });

  it('runs transactions through cached statements and still rolls back', async () => {
    const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
    for (let i = 0; i < 3; i++) {
      await expect(
        db.transaction().execute(async (trx) => {
          await trx.insertInto('t').values({ id: 10, name: 'ten' }).execute();
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
    }
    expect(await db.selectFrom('t').select('id').where('id', '=', 10).execute()).toEqual([]);
    // begin, the insert, rollback: each prepared once for the three transactions.
    expect(prepared.filter((sql) => /insert/i.test(sql))).toHaveLength(1);
  });

  it('gives a second reader a fresh statement while the first is still being iterated', () => {
    const cache = withStatementCache(database);
    const sql = 'select id from t order by id';
    const first = cache.prepare(sql);
    const rows = first.iterate([]);
    expect(rows.next().value).toEqual({ id: 1 });
    const second = cache.prepare(sql);
    expect(second).not.toBe(first);
    expect(second.all([])).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    // The first reader goes on where it was.
    expect([...rows]).toEqual([{ id: 2 }, { id: 3 }]);
    // Both have answered: the one cached last is handed out again.
    expect(cache.prepare(sql)).toBe(second);
  });

  it('keeps only the most recently used statements', () => {
    const cache = withStatementCache(database, 2);
    const a = cache.prepare('select 1');
    const b = cache.prepare('select 2');
    expect(cache.prepare('select 1')).toBe(a);
    cache.prepare('select 3');
    // "select 2" was the least recently used: it is prepared again; "select 1" is not.
    expect(cache.prepare('select 1')).toBe(a);
    expect(cache.prepare('select 2')).not.toBe(b);
    expect(prepared).toEqual(['select 1', 'select 2', 'select 3', 'select 2']);
  });

  it('answers with the new schema after a migration changed a table under a cached statement', () => {
    const cache = withStatementCache(database);
    const sql = 'select * from t where id = ?';
    expect(cache.prepare(sql).all([1])).toEqual([{ id: 1, name: 'one' }]);
    database.exec("alter table t add column grade text not null default 'a'");
    expect(cache.prepare(sql).all([1])).toEqual([{ id: 1, name: 'one', grade: 'a' }]);
  });

  it('closes the database', () => {
    withStatementCache(database).close();
    expect(database.open).toBe(false);
  });
});
