/**
 * WAL checkpoints run on a worker thread (src/storage/sqlite-checkpointer.ts): the pages a commit left in
 * the WAL reach the database file while the event loop is busy with something else, and closing empties
 * the WAL.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../../src/storage/sqlite-checkpointer.js';
import { SqliteDatabase } from '../../src/storage/sqlite-driver.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openDatabase(): { file: string; database: InstanceType<typeof SqliteDatabase> } {
  const dir = mkdtempSync(join(tmpdir(), 'campus-sso-checkpoint-'));
  dirs.push(dir);
  const file = join(dir, 'db.sqlite');
  const database = new SqliteDatabase(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('wal_autocheckpoint = 0');
  database.exec('create table rows (body text)');
  return { file, database };
}

const size = (file: string): number => statSync(file, { throwIfNoEntry: false })?.size ?? 0;
const MB = 2 ** 20;

describe('SQLite checkpoints', () => {
  it('copies committed pages into the database file while the event loop is blocked', async () => {
    const { file, database } = openDatabase();
    const checkpointer = new SqliteCheckpointer(database, 20);
    const insert = database.prepare('insert into rows values (?)');
    database.transaction(() => {
      for (let i = 0; i < 256; i++) insert.run('x'.repeat(4096));
    })();
    expect(size(file)).toBeLessThan(MB);
    // Only another thread can checkpoint while this one spins; give it up to 10 s.
    const deadline = Date.now() + 10_000;
    while (size(file) < MB && Date.now() < deadline) {
      // busy on purpose: no timer of this thread runs
    }
    expect(size(file)).toBeGreaterThanOrEqual(MB);
    await checkpointer.close();
    database.close();
  });

  it('shrinks a WAL file grown past 64 MiB once writes pause, with the database still open', async () => {
    const { file, database } = openDatabase();
    const checkpointer = new SqliteCheckpointer(database, 20);
    const insert = database.prepare('insert into rows values (?)');
    // One burst of ~72 MiB of pages: the WAL file grows past the bound in one commit.
    database.transaction(() => {
      for (let i = 0; i < 18 * 1024; i++) insert.run('w'.repeat(4000));
    })();
    expect(size(`${file}-wal`)).toBeGreaterThan(64 * MB);
    // Copied back by one tick, found unchanged by the next, truncated by the worker: this connection has no
    // journal_size_limit and never checkpoints.
    await expect.poll(() => size(`${file}-wal`), { timeout: 20_000 }).toBe(0);
    expect(database.prepare('select count(*) as n from rows').get()).toEqual({ n: 18 * 1024 });
    // And the WAL keeps working after it: a commit after the truncation is read back.
    insert.run('after');
    expect(database.prepare('select count(*) as n from rows').get()).toEqual({ n: 18 * 1024 + 1 });
    await checkpointer.close();
    database.close();
  }, 40_000);

  it('empties the WAL file when it closes', async () => {
    const { file, database } = openDatabase();
    const checkpointer = new SqliteCheckpointer(database, 60_000);
    const insert = database.prepare('insert into rows values (?)');
    for (let i = 0; i < 64; i++) insert.run('y'.repeat(4096));
    expect(size(`${file}-wal`)).toBeGreaterThan(0);
    await checkpointer.close();
    expect(size(`${file}-wal`)).toBe(0);
    expect(database.prepare('select count(*) as n from rows').get()).toEqual({ n: 64 });
    database.close();
  });
});
