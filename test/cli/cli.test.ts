/**
 * The `campus-sso` command (docs/interface.md#command-line), run as the built program in a child process
 * against a temp SQLite database (and once against PostgreSQL).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAppContext } from '../../src/app-context.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/config.js';
import { migrationProvider } from '../../src/storage/migrations/index.js';
import { openStore } from '../../src/storage/open-store.js';
import { IN_CI, postgresProblem } from '../helpers/databases.js';
import { freshPostgresSchema, TEST_SECRET_KEY } from '../helpers/server.js';
import { Browser } from '../helpers/http.js';
import { type CliResult, type ServeProcess, ensureBuilt, runCli, serveWithBaseUrl } from './cli-process.js';

/** Every migration's name, in order. */
const ALL_MIGRATIONS = Object.keys(await migrationProvider.getMigrations()).sort();

const PASSWORD = 'a-long-password';

let dir: string;
let databaseUrl: string;

beforeAll(async () => {
  await ensureBuilt();
}, 180_000);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'campus-sso-cli-'));
  databaseUrl = `sqlite:${join(dir, 'cli.sqlite')}`;
  return () => rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[], input = '', env: Record<string, string> = {}): Promise<CliResult> =>
  runCli(args, { DATABASE_URL: databaseUrl, ...env }, input);

/** Runs `fn` with an application context opened on the test database (as the server would see it). */
async function withContext<T>(fn: (ctx: ReturnType<typeof createAppContext>) => Promise<T>): Promise<T> {
  const config = loadConfig({ DATABASE_URL: databaseUrl });
  const store = await openStore(config.database);
  try {
    return await fn(createAppContext(config, store, systemClock));
  } finally {
    await store.close();
  }
}

/** Expects exit status 2 with the message and the usage on standard error, nothing on standard output. */
function expectUsageError(result: CliResult, message: RegExp): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toMatch(/^campus-sso: /);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).toContain('usage: campus-sso <command> [options]');
  expect(result.stdout).toBe('');
}

describe('campus-sso user add', () => {
  it('creates a user with the password read from standard input and prints it as JSON', async () => {
    const result = await cli(
      ['user', 'add', '--uin', '1010553892', '--group', 'admin', '--password-stdin'],
      `${PASSWORD}\n`,
    );
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(printed).toEqual({ uin: 1010553892, user_group: 'admin', created_at: expect.any(String) });
    expect(printed.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    await withContext(async (ctx) => {
      // The final line break is not part of the password.
      // The operator chose the password: it need not be changed at the first sign-in.
      expect(await ctx.users.authenticate(1010553892, PASSWORD)).toMatchObject({
        userGroup: 'admin',
        mustChangePassword: false,
      });
      expect(await ctx.users.authenticate(1010553892, `${PASSWORD}\n`)).toBeUndefined();
    });
  });

  it('refuses a uin that exists already with a non-zero exit and a message, keeping the first user', async () => {
    const args = ['user', 'add', '--uin', '10001', '--group', 'member', '--password-stdin'];
    expect((await cli(args, PASSWORD)).code).toBe(0);
    const again = await cli(
      ['user', 'add', '--uin', '10001', '--group', 'admin', '--password-stdin'],
      'other-password',
    );
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/10001.*exists/);
    expect(again.stdout).toBe('');
    await withContext(async (ctx) => {
      expect(await ctx.users.authenticate(10001, PASSWORD)).toMatchObject({ userGroup: 'member' });
    });
  });

  it('refuses a password shorter than 8 characters with exit 2', async () => {
    const result = await cli(
      ['user', 'add', '--uin', '10001', '--group', 'user', '--password-stdin'],
      'short',
    );
    expectUsageError(result, /at least 8 characters/);
  });

  it.each([
    [['user', 'add', '--group', 'user', '--password-stdin'], /--uin/],
    [['user', 'add', '--uin', 'abc', '--group', 'user', '--password-stdin'], /--uin/],
    [['user', 'add', '--uin', '0', '--group', 'user', '--password-stdin'], /--uin/],
    [['user', 'add', '--uin', '9007199254740992', '--group', 'user', '--password-stdin'], /--uin/],
    [
      ['user', 'add', '--uin', '10001', '--group', 'wizard', '--password-stdin'],
      /--group must be one of admin, member, user/,
    ],
    [['user', 'add', '--uin', '10001', '--password-stdin'], /--group/],
    [['user', 'add', '--uin', '10001', '--group', 'user'], /--password-stdin/],
    [['user', 'add', '--uin', '10001', '--group', 'user', '--password', 'x'], /--password/],
    [['user', 'remove'], /unknown command "user remove"/],
  ])('campus-sso %j exits 2 with the usage', async (args, message) => {
    expectUsageError(await cli(args, PASSWORD), message);
  });
});

describe('campus-sso app add', () => {
  it('registers an app and prints {"client_id","client_secret"} that authenticate', async () => {
    const result = await cli([
      'app',
      'add',
      '--name',
      'Library',
      '--emoji',
      '📚',
      '--redirect-uri',
      'https://library.example.edu/callback',
      '--redirect-uri',
      'http://127.0.0.1:8000/cb',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as { client_id: string; client_secret: string };
    expect(Object.keys(printed)).toEqual(['client_id', 'client_secret']);
    expect(printed.client_id).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(printed.client_secret.length).toBeGreaterThanOrEqual(43);
    await withContext(async (ctx) => {
      const client = await ctx.apps.authenticate(printed.client_id, printed.client_secret);
      expect(client).toMatchObject({ clientId: printed.client_id, disabled: false });
      const app = await ctx.store.apps.find(printed.client_id);
      expect(app).toMatchObject({
        name: 'Library',
        emoji: '📚',
        redirectUris: ['https://library.example.edu/callback', 'http://127.0.0.1:8000/cb'],
        disabled: false,
      });
      expect(await ctx.apps.authenticate(printed.client_id, `${printed.client_secret}x`)).toBeUndefined();
      // docs/interface.md#resources: the secret is stored only as a hash.
      expect((await ctx.store.apps.find(printed.client_id))?.secretHash).not.toContain(printed.client_secret);
    });
  });

  it('registers a device-only app with --device and no redirect URI; without --device one is required', async () => {
    const result = await cli(['app', 'add', '--name', 'Classroom screen', '--emoji', '📺', '--device']);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as { client_id: string };
    await withContext(async (ctx) => {
      expect(await ctx.store.apps.find(printed.client_id)).toMatchObject({
        deviceGrant: true,
        redirectUris: [],
      });
      // Audited as the admin API's app_created, by the operator.
      expect(await ctx.store.audit.list({ actions: ['app_created'], limit: 5 })).toEqual([
        expect.objectContaining({
          actorUin: null,
          target: `app:${printed.client_id}`,
          detail: { name: 'Classroom screen', via: 'cli' },
        }),
      ]);
    });
    const listed = JSON.parse((await cli(['app', 'list'])).stdout) as Record<string, unknown>;
    expect(listed).toMatchObject({ client_id: printed.client_id, device_grant: true });
    const refused = await cli(['app', 'add', '--name', 'Web', '--emoji', '🌐']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('at least one redirect URI is required');
  });

  it('registers a service account with --client-credentials and --scope, and no redirect URI', async () => {
    const result = await cli([
      'app',
      'add',
      '--name',
      'Roster sync',
      '--emoji',
      '🔄',
      '--client-credentials',
      '--scope',
      'admin:users:read',
      '--scope',
      'admin:users:write',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as { client_id: string };
    await withContext(async (ctx) => {
      expect(await ctx.store.apps.find(printed.client_id)).toMatchObject({
        clientCredentials: true,
        allowedScopes: ['admin:users:read', 'admin:users:write'],
        redirectUris: [],
      });
    });
    const base = ['app', 'add', '--name', 'Job', '--emoji', '🔄'];
    expectUsageError(await cli([...base, '--client-credentials', '--scope', 'openid']), /--scope: /);
    expectUsageError(await cli([...base, '--scope', 'admin:users:read']), /add --client-credentials/);
  });

  it('counts the name in code points, as the API and the page do: 64 emoji pass, 65 are refused', async () => {
    const args = (name: string) => [
      'app',
      'add',
      '--name',
      name,
      '--emoji',
      '🦊',
      '--redirect-uri',
      'https://a.example/cb',
    ];
    const accepted = await cli(args('🦊'.repeat(64)));
    expect(accepted.code, accepted.stderr).toBe(0);
    const { client_id: clientId } = JSON.parse(accepted.stdout) as { client_id: string };
    await withContext(async (ctx) => {
      expect((await ctx.store.apps.find(clientId))?.name).toBe('🦊'.repeat(64));
    });
    expectUsageError(await cli(args('🦊'.repeat(65))), /--name must be 1 to 64 characters/);
  });

  it('gives every app its own client_id and secret', async () => {
    const args = ['app', 'add', '--name', 'A', '--emoji', '🇨🇳', '--redirect-uri', 'https://a.example/cb'];
    // One after the other: two commands migrating a fresh SQLite file at once race (NOTES-foundation-bugs.md).
    const first = await cli(args);
    const second = await cli(args);
    const a = JSON.parse(first?.stdout ?? '') as { client_id: string; client_secret: string };
    const b = JSON.parse(second?.stdout ?? '') as { client_id: string; client_secret: string };
    expect(a.client_id).not.toBe(b.client_id);
    expect(a.client_secret).not.toBe(b.client_secret);
  });

  it.each([
    [
      ['app', 'add', '--name', 'Lib', '--emoji', 'ab', '--redirect-uri', 'https://a.example/cb'],
      /--emoji must be exactly one emoji/,
    ],
    [['app', 'add', '--name', 'Lib', '--emoji', '📚📚', '--redirect-uri', 'https://a.example/cb'], /--emoji/],
    [['app', 'add', '--name', 'Lib', '--redirect-uri', 'https://a.example/cb'], /--emoji/],
    [
      ['app', 'add', '--name', 'Lib', '--emoji', '📚', '--redirect-uri', 'http://library.example.edu/cb'],
      /--redirect-uri: .*must use https/,
    ],
    [
      ['app', 'add', '--name', 'Lib', '--emoji', '📚', '--redirect-uri', 'https://a.example/cb#frag'],
      /--redirect-uri: .*fragment/,
    ],
    [
      ['app', 'add', '--name', 'Lib', '--emoji', '📚', '--redirect-uri', '/relative'],
      /--redirect-uri: .*absolute/,
    ],
    [['app', 'add', '--name', 'Lib', '--emoji', '📚'], /--redirect-uri: at least one/],
    [['app', 'add', '--emoji', '📚', '--redirect-uri', 'https://a.example/cb'], /--name/],
    [
      ['app', 'add', '--name', 'x'.repeat(65), '--emoji', '📚', '--redirect-uri', 'https://a.example/cb'],
      /--name must be 1 to 64/,
    ],
    [
      ['app', 'add', '--name', 'Lib', '--emoji', '📚', '--redirect-uri', 'https://a.example/cb', 'extra'],
      /extra|positional/i,
    ],
  ])('campus-sso %j exits 2 with the usage', async (args, message) => {
    expectUsageError(await cli(args), message);
  });
});

describe('campus-sso (arguments and configuration)', () => {
  it('exits 2 with the usage for an unknown command', async () => {
    expectUsageError(await cli(['frobnicate']), /unknown command "frobnicate"/);
  });

  it('exits 2 with the usage for an unknown option', async () => {
    expectUsageError(await cli(['migrate', '--force']), /--force|takes no arguments/);
  });

  it('exits 2 with the usage when no command is given', async () => {
    const result = await cli([]);
    expect(result.code).toBe(2);
    expect(result.stdout + result.stderr).toContain('usage: campus-sso <command> [options]');
  });

  it('prints the usage and exits 0 for --help', async () => {
    const result = await cli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('usage: campus-sso <command> [options]');
  });

  it.each([
    [{ PORT: 'abc' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ ACCESS_TOKEN_TTL: '10' }, /ACCESS_TOKEN_TTL/],
    [{ BASE_URL: 'not a url' }, /BASE_URL/],
  ])('with %j exits 2 with a one-line message naming the variable', async (env, variable) => {
    for (const args of [['migrate'], ['serve']]) {
      const result = await cli(args, '', env);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^campus-sso: configuration: .+\n$/);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(variable);
      expect(result.stdout).toBe('');
    }
  });
});

describe('campus-sso migrate', () => {
  it('prints the migrations it applied, then applies nothing the second time', async () => {
    const first = await cli(['migrate']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ applied: ALL_MIGRATIONS });
    const second = await cli(['migrate']);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ applied: [] });
  });

  it('lets several processes migrate a new SQLite file at once, each succeeding', async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => cli(['migrate'])));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const applied = results.flatMap((result) => (JSON.parse(result.stdout) as { applied: string[] }).applied);
    expect(applied.sort()).toEqual(ALL_MIGRATIONS);
  });
});

describe('campus-sso serve', () => {
  const FIRST_ADMIN = /first start: created admin/;

  async function serveOn(url: string): Promise<{ serve: ServeProcess; baseUrl: string }> {
    // The session API wants BASE_URL's origin: see serveWithBaseUrl.
    const { serve, baseUrl } = await serveWithBaseUrl({
      ...(url.startsWith('postgres') ? { SECRET_KEY: TEST_SECRET_KEY } : {}),
      DATABASE_URL: url,
      LOG_LEVEL: 'info',
    });
    return { serve, baseUrl };
  }

  function firstAdmin(serve: ServeProcess): { uin: number; password: string } | undefined {
    const line = serve.logLines.find((l) => FIRST_ADMIN.test(String(l.msg)));
    return line && { uin: line.uin as number, password: line.password as string };
  }

  async function expectServesAndStops(url: string): Promise<void> {
    const { serve, baseUrl } = await serveOn(url);
    try {
      const admin = firstAdmin(serve);
      expect(admin, serve.stdout).toBeDefined();
      expect(admin?.password.length).toBeGreaterThanOrEqual(16);
      expect(serve.stdout.match(new RegExp(FIRST_ADMIN, 'g'))).toHaveLength(1);

      // The generated password signs in, and must be changed before anything else (it is in the log).
      const browser = new Browser(baseUrl);
      const login = await browser.login(admin?.uin ?? 0, admin?.password ?? '');
      expect(login.status).toBe(200);
      expect(((await login.json()) as { data: unknown }).data).toEqual({
        uin: admin?.uin,
        user_group: 'admin',
        must_change_password: true,
      });
      const refused = await browser.call('GET', '/v1/admin/users');
      expect([refused.status, ((await refused.json()) as { code: number }).code]).toEqual([403, 9]);
      const change = await browser.call('POST', '/v1/account/password', {
        current_password: admin?.password,
        new_password: 'the new admin passphrase',
      });
      expect(change.status).toBe(200);
      // Then an admin needs a second factor before any admin call works (MFA_REQUIRED_GROUPS=admin).
      const noFactor = await browser.call('GET', '/v1/admin/users');
      expect([noFactor.status, ((await noFactor.json()) as { code: number }).code]).toEqual([403, 8]);
      expect((await browser.call('GET', '/v1/account/me')).status).toBe(200);

      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
      expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
    } finally {
      expect(await serve.stop()).toBe(0);
    }

    // A second start on the same database finds the admin and prints no new one.
    const again = await serveOn(url);
    try {
      expect((await fetch(`${again.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      expect(await again.serve.stop()).toBe(0);
    }
    expect(again.serve.stdout).not.toMatch(FIRST_ADMIN);
  }

  it('starts, prints a generated first admin that signs in, answers /healthz, stops on SIGTERM with 0; a second start prints no new admin', async () => {
    await expectServesAndStops(databaseUrl);
  });

  it('exits 1 and says so when another program holds its port, leaving nothing running', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const result = await cli(['serve'], '', { PORT: String(port), HOST: '127.0.0.1' });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toBe(
        `campus-sso: cannot listen on 127.0.0.1:${port}: another program uses that port (EADDRINUSE): stop it, or set PORT\n`,
      );
    } finally {
      holder.close();
    }
  });

  it('prints no first admin when an admin exists already', async () => {
    const created = await cli(
      ['user', 'add', '--uin', '10001', '--group', 'admin', '--password-stdin'],
      PASSWORD,
    );
    expect(created.code).toBe(0);
    const { serve } = await serveOn(databaseUrl);
    expect(await serve.stop()).toBe(0);
    expect(serve.stdout).not.toMatch(FIRST_ADMIN);
  });

  it('never logs the session cookie, a password sent to sign in, or the query string', async () => {
    const { serve, baseUrl } = await serveOn(databaseUrl);
    try {
      const admin = firstAdmin(serve);
      const browser = new Browser(baseUrl);
      await browser.login(admin?.uin ?? 0, 'wrong-password-SECRET1');
      await browser.login(admin?.uin ?? 0, admin?.password ?? '');
      await browser.call('GET', '/v1/account/me?token=SECRET2');
      const cookie = (browser.sessionCookie ?? '').split('=')[1] ?? 'none';
      // Stopped, so everything it logged for those requests has been read.
      expect(await serve.stop()).toBe(0);
      expect(serve.stdout).not.toContain('SECRET1');
      expect(serve.stdout).not.toContain('SECRET2');
      expect(serve.stdout).not.toContain(cookie);
    } finally {
      await serve.stop();
    }
  });

  describe.skipIf(postgresProblem !== undefined && !IN_CI)('on PostgreSQL', () => {
    let schema: { url: string; drop: () => Promise<void> };
    beforeAll(async () => {
      schema = await freshPostgresSchema();
    });
    afterAll(async () => {
      await schema?.drop();
    });

    it('starts on a fresh schema, prints a first admin who signs in, and stops on SIGTERM with 0', async () => {
      await expectServesAndStops(schema.url);
    });

    it('refuses to start without SECRET_KEY, with a one-line message saying so', async () => {
      const result = await runCli(['serve'], { DATABASE_URL: schema.url });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^campus-sso: configuration: SECRET_KEY is required with PostgreSQL/);
    });
  });
});

describe('campus-sso keys', () => {
  interface KeyLine {
    kid: string;
    alg: string;
    created_at: string;
    status: string;
  }
  const lines = (stdout: string): KeyLine[] =>
    stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as KeyLine);

  it('keys list prints one JSON line per key: kid, alg, created_at, status', async () => {
    const result = await cli(['keys', 'list']);
    expect(result.code, result.stderr).toBe(0);
    const keys = lines(result.stdout);
    expect(keys.map((key) => [key.alg, key.status]).sort()).toEqual([
      ['ES256', 'active'],
      ['RS256', 'active'],
    ]);
    for (const key of keys) {
      expect(key.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(new Date(key.created_at).toISOString()).toBe(key.created_at);
    }
  });

  it('keys rotate makes a new pair active and keeps the old pair as retiring', async () => {
    const before = lines((await cli(['keys', 'list'])).stdout);
    const result = await cli(['keys', 'rotate']);
    expect(result.code, result.stderr).toBe(0);
    const after = lines(result.stdout);
    expect(after).toHaveLength(4);
    for (const old of before) {
      expect(after.find((key) => key.kid === old.kid)?.status).toBe('retiring');
    }
    expect(
      after
        .filter((key) => key.status === 'active')
        .map((key) => key.alg)
        .sort(),
    ).toEqual(['ES256', 'RS256']);
    // The secret key file was created beside the database, readable by its owner only.
    expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    // docs/interface.md#audit-trail: an action on keys is recorded, naming the new ones.
    const created = after.filter((key) => key.status === 'active').map((key) => key.kid);
    await withContext(async (ctx) => {
      const [event] = await ctx.store.audit.list({ actions: ['signing_keys_rotated'], limit: 5 });
      expect(event).toMatchObject({ actorUin: null, target: null, outcome: 'success' });
      expect([...((event?.detail?.kids as string[] | undefined) ?? [])].sort()).toEqual(created.sort());
    });
  });

  it('exits 2 with the usage for an unknown keys command', async () => {
    expectUsageError(await cli(['keys', 'delete']), /unknown command "keys delete"/);
  });
});
