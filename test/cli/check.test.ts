/**
 * `campus-sso check` (docs/operations.md#checking-an-installation): one line per check, exit 0 when all
 * pass and 1 otherwise; it changes nothing (no migration applied, no key file created).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SqliteDatabase } from '../../src/storage/sqlite-driver.js';
import { describeEachDatabase } from '../helpers/fixture.js';
import { TEST_SECRET_KEY, freshPostgresSchema } from '../helpers/server.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { ensureBuilt, runCli } from './cli-process.js';

const OTHER_KEY = 'another-secret-key-that-opens-nothing-0123456789';

describeEachDatabase('campus-sso check', (database) => {
  let dir: string;
  let schema: { url: string; drop: () => Promise<void> } | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    await ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'campus-sso-check-'));
    if (database === 'postgres') schema = await freshPostgresSchema();
    env = schema
      ? { DATABASE_URL: schema.url, SECRET_KEY: TEST_SECRET_KEY }
      : { DATABASE_URL: `sqlite:${join(dir, 'campus-sso.sqlite')}` };
    // A user, and the signing keys (`keys list` makes them on first use).
    const added = await runCli(
      ['user', 'add', '--uin', '20001', '--group', 'user', '--password-stdin'],
      env,
      'a long password 1',
    );
    expect(added.code, added.stderr).toBe(0);
    const keys = await runCli(['keys', 'list'], env);
    expect(keys.code, keys.stderr).toBe(0);
  }, 180_000);

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await schema?.drop();
  });

  it('passes every check on a sound installation, one line each, and exits 0', async () => {
    const result = await runCli(['check'], env);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.map((line) => line.split(':')[0])).toEqual([
      'ok   database',
      'ok   migrations',
      'ok   signing keys',
      'ok   TOTP secrets',
    ]);
  }, 30_000);

  it('fails the key checks with another key-encryption key, and exits 1', async () => {
    const other = schema
      ? { ...env, SECRET_KEY: OTHER_KEY }
      : { ...env, SECRET_KEY_FILE: join(dir, 'other.key') };
    if (!schema) writeFileSync(join(dir, 'other.key'), `${OTHER_KEY}\n`);
    const result = await runCli(['check'], other);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL signing keys: the key-encryption key opens none of /m);
  }, 30_000);

  it('fails a database whose migrations are not applied, applying none', async () => {
    const fresh = await (async () => {
      if (database === 'postgres') {
        const other = await freshPostgresSchema();
        return { env: { DATABASE_URL: other.url, SECRET_KEY: TEST_SECRET_KEY }, drop: other.drop };
      }
      const file = join(dir, 'unmigrated.sqlite');
      new SqliteDatabase(file).close();
      return {
        env: { DATABASE_URL: `sqlite:${file}`, SECRET_KEY: TEST_SECRET_KEY },
        drop: async () => undefined,
      };
    })();
    try {
      const first = await runCli(['check'], fresh.env);
      expect(first.code).toBe(1);
      expect(first.stdout).toMatch(/^FAIL migrations: not applied: 0001-initial, /m);
      // Nothing was applied: the same answer again.
      const again = await runCli(['check'], fresh.env);
      expect(again.stdout).toMatch(/^FAIL migrations: not applied: 0001-initial, /m);
    } finally {
      await fresh.drop();
    }
  }, 30_000);

  if (database === 'sqlite') {
    it('says the key file was not found, and creates none', async () => {
      const keyFile = join(dir, 'missing', 'secret.key');
      const result = await runCli(['check'], { ...env, SECRET_KEY_FILE: keyFile });
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^FAIL keys: the key file .*secret\.key was not found$/m);
      expect(existsSync(keyFile)).toBe(false);
    }, 30_000);
  } else {
    it('fails when PostgreSQL cannot be reached', async () => {
      const url = new URL(schema?.url ?? '');
      const proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
      try {
        proxy.cut();
        const result = await runCli(['check'], {
          ...env,
          DATABASE_URL: proxy.route(schema?.url ?? ''),
          DATABASE_CONNECT_TIMEOUT_MS: '1000',
        });
        expect(result.code).toBe(1);
        expect(result.stdout).toMatch(/^FAIL database: not reachable: /m);
      } finally {
        await proxy.close();
      }
    }, 30_000);
  }
});
