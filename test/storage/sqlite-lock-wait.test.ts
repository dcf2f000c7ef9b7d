/**
 * On SQLite the serving connection never sleeps for a lock (src/storage/sqlite-busy.ts): while another
 * connection holds the write lock, a write waits on a timer and the event loop serves everything else; the
 * write goes through once the lock is free. And the checkpoint worker (src/storage/sqlite-checkpointer.ts)
 * never holds a lock that a writer would have to wait for.
 *
 * The other connection lives on this thread, as the CLI's or a second instance's would in another process:
 * a write that slept in SQLite's busy handler would sleep through the whole busy timeout, then fail busy.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../../src/storage/sqlite-checkpointer.js';
import { SqliteDatabase } from '../../src/storage/sqlite-driver.js';
import type { AccessTokenRecord, AuthorizationCodeRecord, NewUserRecord } from '../../src/storage/store.js';
import { type OpenedStore, openFreshStore } from '../helpers/databases.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0, 123);
const UIN = 10001;
const CLIENT_ID = 'lockWaitClient01';

/** The fewest columns a user needs (no foreign keys: codes and tokens need no user or app row). */
const USER: NewUserRecord = {
  uin: UIN,
  passwordHash: 'not-a-hash',
  userGroup: 'user',
  createdAt: NOW,
  disabled: false,
  mustChangePassword: false,
};

let serial = 0;

function code(): AuthorizationCodeRecord {
  return {
    codeHash: `code-${++serial}`,
    clientId: CLIENT_ID,
    uin: UIN,
    redirectUri: 'https://app.example.edu/callback',
    scope: 'openid',
    nonce: null,
    codeChallenge: null,
    codeChallengeMethod: null,
    authTime: NOW - 1000,
    createdAt: NOW,
    expiresAt: NOW + 600_000,
    usedAt: null,
    amr: ['pwd'],
    sid: null,
  };
}

/** A code already stored, read while a write waits. */
const SEEN = code();

function accessToken(codeHash: string | null): AccessTokenRecord {
  return {
    tokenHash: `at-${++serial}`,
    clientId: CLIENT_ID,
    uin: UIN,
    scope: 'openid',
    codeHash,
    familyId: null,
    createdAt: NOW,
    expiresAt: NOW + 3600_000,
    revoked: false,
  };
}

/** Whether a promise has settled, read without waiting for it. */
function watch(promise: Promise<unknown>): { settled: () => boolean } {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return { settled: () => settled };
}

/** Several turns of the event loop, timers included: a waiting write's retries run meanwhile. */
async function someTurns(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('SQLite writes while another connection holds the write lock', () => {
  let opened: OpenedStore;
  let other: InstanceType<typeof SqliteDatabase>;

  beforeEach(async () => {
    opened = await openFreshStore('sqlite');
    await opened.store.migrate();
    await opened.store.codes.insert(SEEN);
    other = new SqliteDatabase(opened.url.replace(/^sqlite:/, ''), { timeout: 0 });
  });
  afterEach(async () => {
    if (other.inTransaction) other.exec('rollback');
    other.close();
    await opened?.dispose();
  });

  /** Runs `write` while `other` holds the write lock: it must wait, with the event loop free, then succeed. */
  async function waitsForTheLock<T>(write: () => Promise<T>): Promise<T> {
    other.exec('begin immediate');
    const pending = write();
    const state = watch(pending);
    await someTurns();
    // Reads go on meanwhile (WAL), through the same connection: a hot-path statement (Kysely's own
    // queries queue behind the waiting one, as behind a transaction, on its one connection).
    expect(await opened.store.codes.findWithGrantor(SEEN.codeHash)).toEqual({ code: SEEN, user: undefined });
    expect(state.settled()).toBe(false);
    other.exec('commit');
    return pending;
  }

  it("redeems a code (the exchange's batched IMMEDIATE transaction) once the lock is free", async () => {
    const c = code();
    await opened.store.codes.insert(c);
    const token = accessToken(c.codeHash);
    expect(
      await waitsForTheLock(() => opened.store.tokens.redeemCode(c.codeHash, NOW, token, undefined)),
    ).toBe(true);
    expect(await opened.store.tokens.findAccessToken(token.tokenHash)).toEqual(token);
  });

  it('runs a statement outside a transaction once the lock is free', async () => {
    const c = code();
    await waitsForTheLock(() => opened.store.codes.insert(c));
    expect(await opened.store.codes.find(c.codeHash)).toEqual(c);
  });

  it('begins a store transaction once the lock is free', async () => {
    const c = code();
    await waitsForTheLock(() => opened.store.transaction((tx) => tx.codes.insert(c)));
    expect(await opened.store.codes.find(c.codeHash)).toEqual(c);
  });

  it('commits a durable write (synchronous = FULL) once the lock is free', async () => {
    expect(await waitsForTheLock(() => opened.store.users.insert(USER))).toBe(true);
    expect(await opened.store.users.find(UIN)).toMatchObject(USER);
  });

  it('answers SQLITE_BUSY, as the busy timeout did, when the lock is never freed', async () => {
    other.exec('begin immediate');
    await expect(opened.store.codes.insert(code())).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
  }, 15_000);
});

describe('SQLite checkpoints beside the writer', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('never hold a lock a commit waits for: no write fails busy while the worker checkpoints', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'campus-sso-lock-wait-'));
    dirs.push(dir);
    const file = join(dir, 'db.sqlite');
    // As open-store.ts sets the serving connection up: no busy handler, no checkpoint inside commits.
    const database = new SqliteDatabase(file, { timeout: 0 });
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('wal_autocheckpoint = 0');
    database.exec('create table rows (body text)');
    const checkpointer = new SqliteCheckpointer(database, 1);
    const insert = database.prepare('insert into rows values (?)');
    const commit = database.transaction((body: string) => insert.run(body));
    // Commits back to back, on this thread, while the worker checkpoints every millisecond; until the
    // checkpoints have copied at least 4 MiB into the database file (several checkpoints' worth).
    let commits = 0;
    const deadline = Date.now() + 20_000;
    while ((statSync(file).size < 4 * 2 ** 20 || commits < 2000) && Date.now() < deadline) {
      commit.immediate('z'.repeat(2048));
      commits++;
    }
    expect(statSync(file).size).toBeGreaterThanOrEqual(4 * 2 ** 20);
    expect(database.prepare('select count(*) as n from rows').get()).toEqual({ n: commits });
    await checkpointer.close();
    database.close();
  }, 30_000);
});
