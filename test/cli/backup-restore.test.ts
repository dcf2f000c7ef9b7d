/**
 * `campus-sso backup FILE` and `campus-sso restore FILE` (docs/operations.md#backups), and the start-up
 * integrity check that refuses to serve from a damaged SQLite file.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDatabase } from '../../src/storage/sqlite-driver.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startServer } from '../../src/runtime.js';
import { Browser } from '../helpers/http.js';
import { ServeProcess, ensureBuilt, runCli, serveOnAnyPort, serveWithBaseUrl } from './cli-process.js';

const PASSWORD = 'correct horse battery';
let dir: string;
let counter = 0;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'campus-sso-backup-'));
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh database file path in the test folder. */
function freshFile(name: string): string {
  return join(dir, `${name}-${++counter}.sqlite`);
}

function integrity(file: string): string {
  const db = new SqliteDatabase(file, { readonly: true });
  try {
    return db.pragma('integrity_check', { simple: true }) as string;
  } finally {
    db.close();
  }
}

function uins(file: string): number[] {
  const db = new SqliteDatabase(file, { readonly: true });
  try {
    return (db.prepare('select uin from users order by uin').all() as { uin: number }[]).map((r) => r.uin);
  } finally {
    db.close();
  }
}

const addUser = (databaseUrl: string, uin: number) =>
  runCli(
    ['user', 'add', '--uin', String(uin), '--group', 'user', '--password-stdin'],
    {
      DATABASE_URL: databaseUrl,
    },
    PASSWORD,
  );

describe('campus-sso backup FILE', () => {
  it('copies the database consistently while the server keeps writing', async () => {
    const file = freshFile('busy');
    const config = loadConfig({ DATABASE_URL: `sqlite:${file}`, PORT: '0', LOG_LEVEL: 'silent' });
    const server = await startServer(config, { logger: false });
    const backup = join(dir, 'busy-backup.sqlite');
    try {
      // Enough rows that the copy takes a while, then writes that run for as long as the backup does.
      let next = 1_000_000;
      const writeOne = () =>
        server.ctx.store.users.insert({
          uin: next++,
          passwordHash: '!',
          userGroup: 'user',
          createdAt: Date.now(),
          disabled: false,
          mustChangePassword: false,
        });
      for (let i = 0; i < 2000; i++) await writeOne();
      const before = next;
      let done = false;
      const writer = (async () => {
        while (!done) await writeOne();
      })();
      const result = await runCli(['backup', backup], { DATABASE_URL: `sqlite:${file}` });
      done = true;
      await writer;
      const after = next;

      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ backup, bytes: statSync(backup).size });
      expect(integrity(backup)).toBe('ok');
      // The copy is the database as of one commit: every row written before, a gapless run after that.
      const copied = uins(backup).filter((uin) => uin >= 1_000_000);
      expect(copied.length).toBeGreaterThanOrEqual(before - 1_000_000);
      expect(copied.length).toBeLessThanOrEqual(after - 1_000_000);
      expect(copied).toEqual(Array.from({ length: copied.length }, (_, i) => 1_000_000 + i));
      expect(after - before, 'the server wrote while the backup ran').toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('replaces an existing backup file and leaves no partial file behind', async () => {
    const file = freshFile('replace');
    expect((await addUser(`sqlite:${file}`, 30001)).code).toBe(0);
    const backup = join(dir, 'replace-backup.sqlite');
    expect((await runCli(['backup', backup], { DATABASE_URL: `sqlite:${file}` })).code).toBe(0);
    expect((await addUser(`sqlite:${file}`, 30002)).code).toBe(0);
    const again = await runCli(['backup', backup], { DATABASE_URL: `sqlite:${file}` });
    expect(again.code, again.stderr).toBe(0);
    expect(uins(backup)).toEqual(expect.arrayContaining([30001, 30002]));
    expect(existsSync(`${backup}-wal`)).toBe(false);
  }, 30_000);

  it('answers with the pg_dump recipe when DATABASE_URL is PostgreSQL', async () => {
    const result = await runCli(['backup', join(dir, 'pg.dump')], {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
      SECRET_KEY: 'a-test-key-encryption-key-of-32-characters-or-more',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/pg_dump --format=custom/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('exits 2 with the usage when FILE is missing', async () => {
    const result = await runCli(['backup'], { DATABASE_URL: `sqlite:${freshFile('usage')}` });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/backup needs a FILE/);
  });
});

describe('campus-sso restore FILE', () => {
  it('refuses while a server has the database open, and changes nothing', async () => {
    const file = freshFile('serving');
    const { serve, baseUrl } = await serveOnAnyPort({ DATABASE_URL: `sqlite:${file}` });
    try {
      const backup = join(dir, 'serving-backup.sqlite');
      expect((await runCli(['backup', backup], { DATABASE_URL: `sqlite:${file}` })).code).toBe(0);
      expect((await addUser(`sqlite:${file}`, 40001)).code).toBe(0);

      const result = await runCli(['restore', backup], { DATABASE_URL: `sqlite:${file}` });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/is in use .*stop every server/);
      expect(uins(file)).toContain(40001);
      expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  }, 60_000);

  it('restores after the server was killed with SIGKILL, without its stale -wal and -shm', async () => {
    const file = freshFile('killed');
    const url = `sqlite:${file}`;
    const { serve, baseUrl } = await serveWithBaseUrl({ DATABASE_URL: url });
    expect((await addUser(url, 50001)).code).toBe(0);
    const backup = join(dir, 'killed-backup.sqlite');
    expect((await runCli(['backup', backup], { DATABASE_URL: url })).code).toBe(0);
    // After the backup: a new user, and sign-ins that the server writes into its WAL.
    expect((await addUser(url, 50002)).code).toBe(0);
    expect((await new Browser(baseUrl).login(50002, PASSWORD)).status).toBe(200);
    serve.child.kill('SIGKILL');
    await serve.stop();
    expect(existsSync(`${file}-wal`)).toBe(true);
    expect(existsSync(`${file}-shm`)).toBe(true);

    const result = await runCli(['restore', backup], { DATABASE_URL: url });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ restored: file, from: backup, integrity: 'ok' });
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(existsSync(`${file}-shm`)).toBe(false);
    expect(integrity(file)).toBe('ok');

    // The restored database serves: the user from before the backup signs in, the later one is gone.
    const { serve: again, baseUrl: restored } = await serveWithBaseUrl({ DATABASE_URL: url });
    try {
      expect((await new Browser(restored).login(50001, PASSWORD)).status).toBe(200);
      expect((await new Browser(restored).login(50002, PASSWORD)).status).toBe(401);
    } finally {
      expect(await again.stop()).toBe(0);
    }
  }, 90_000);

  it('refuses a damaged backup and leaves the database as it was', async () => {
    const file = freshFile('keep');
    expect((await addUser(`sqlite:${file}`, 60001)).code).toBe(0);
    const damaged = join(dir, 'damaged-backup.sqlite');
    expect((await runCli(['backup', damaged], { DATABASE_URL: `sqlite:${file}` })).code).toBe(0);
    damage(damaged);
    const result = await runCli(['restore', damaged], { DATABASE_URL: `sqlite:${file}` });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/the backup .* is damaged/);
    expect(uins(file)).toContain(60001);
  }, 30_000);

  it('answers with the pg_restore recipe when DATABASE_URL is PostgreSQL', async () => {
    const result = await runCli(['restore', join(dir, 'pg.dump')], {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
      SECRET_KEY: 'a-test-key-encryption-key-of-32-characters-or-more',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/pg_restore --clean/);
  });
});

/** Overwrites every page after the first with garbage (the header stays readable, the b-trees do not). */
function damage(file: string): void {
  const pageSize = 4096;
  const pages = Math.floor(statSync(file).size / pageSize);
  const fd = openSync(file, 'r+');
  try {
    for (let page = 1; page < pages; page++) writeSync(fd, Buffer.alloc(512, 0xa5), 0, 512, page * pageSize);
  } finally {
    closeSync(fd);
  }
}

describe('campus-sso serve on a damaged SQLite file', () => {
  it('refuses to serve, with a one-line message that says to restore a backup', async () => {
    const file = freshFile('damaged');
    expect((await addUser(`sqlite:${file}`, 70001)).code).toBe(0);
    damage(file);
    // PORT=0: it must not get as far as listening, and if it did, no port would have been taken from anyone.
    const serve = ServeProcess.start({ PORT: '0', DATABASE_URL: `sqlite:${file}` });
    const code =
      serve.child.exitCode ??
      (await new Promise<number | null>((resolve) => serve.child.once('exit', resolve)));
    expect(code).toBe(1);
    const lines = serve.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^campus-sso: the database .* is damaged \(.+\); not serving from it\. /);
    expect(lines[0]).toMatch(/campus-sso restore BACKUP_FILE$/);
  }, 30_000);
});

describe('campus-sso backup and restore, small faults', () => {
  /** A database that a server has started on once (signing keys sealed with its secret.key), and its backup. */
  async function servedAndBackedUp(name: string): Promise<{ file: string; backup: string }> {
    const folder = mkdtempSync(join(dir, `${name}-`));
    const file = join(folder, 'campus-sso.sqlite');
    const config = loadConfig({ DATABASE_URL: `sqlite:${file}`, PORT: '0', LOG_LEVEL: 'silent' });
    const server = await startServer(config, { logger: false });
    await server.close();
    expect(existsSync(join(folder, 'secret.key'))).toBe(true);
    const backup = join(dir, `${name}-backup.sqlite`);
    const result = await runCli(['backup', backup], { DATABASE_URL: `sqlite:${file}` });
    expect(result.code, result.stderr).toBe(0);
    return { file, backup };
  }

  it('restores into a folder that does not exist yet, creating it as serve does', async () => {
    const { backup } = await servedAndBackedUp('new-folder');
    const target = join(dir, `nowhere-${++counter}`, 'deeper', 'campus-sso.sqlite');
    const result = await runCli(['restore', backup], { DATABASE_URL: `sqlite:${target}` });
    expect(result.code, result.stderr).toBe(0);
    expect(integrity(target)).toBe('ok');
  }, 60_000);

  it('leaves no .partial file when a backup fails', async () => {
    const file = freshFile('failed-backup');
    expect((await addUser(`sqlite:${file}`, 80001)).code).toBe(0);
    // The copy is made, but cannot take the place of FILE: a folder that is not empty is there.
    const folder = mkdtempSync(join(dir, 'partial-'));
    const target = join(folder, 'backup.sqlite');
    mkdirSync(join(target, 'inside'), { recursive: true });
    const result = await runCli(['backup', target], { DATABASE_URL: `sqlite:${file}` });
    expect(result.code).toBe(1);
    expect(readdirSync(folder)).toEqual(['backup.sqlite']);
  }, 30_000);

  it('refuses to start a restored database without its secret.key, says so, and writes no key file', async () => {
    const { backup } = await servedAndBackedUp('keyless');
    const folder = mkdtempSync(join(dir, 'restored-'));
    const target = join(folder, 'campus-sso.sqlite');
    expect((await runCli(['restore', backup], { DATABASE_URL: `sqlite:${target}` })).code).toBe(0);
    const serve = await runCli(['serve'], { DATABASE_URL: `sqlite:${target}`, PORT: '0' });
    expect(serve.code).toBe(1);
    expect(serve.stderr).toMatch(/the key file .*secret\.key was not found/);
    expect(existsSync(join(folder, 'secret.key'))).toBe(false);
  }, 60_000);
});
