/**
 * `campus-sso import-campux --sqlite FILE | --mongo-export DIR` (docs/interface.md#command-line): users keep
 * their argon2id password hashes, apps their client_id and (plaintext UUID) secret, hashed on import, and
 * their redirect URIs; a user banned until later is imported disabled; idempotent, with a report.
 * The inputs are built the way Campux writes them: its SQLite file as GORM and Go's SQLite driver leave it
 * (`account_pos`, `o_auth_app_pos` with redirect_uris a JSON BLOB, `ban_infos`), and the JSON lines
 * `mongoexport` writes for its MongoDB collections (`account`, `oauth_app`, `ban_list`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash } from '@node-rs/argon2';
import { SqliteDatabase } from '../../src/storage/sqlite-driver.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CampuxImportReport } from '../../src/domain/campux-import.js';
import { loadConfig } from '../../src/config/config.js';
import { type RunningServer, startServer } from '../../src/runtime.js';
import { Browser, type ServerAddress } from '../helpers/http.js';
import { type Fetch, injectFetch } from '../helpers/inject-fetch.js';
import { ensureBuilt, runCli } from './cli-process.js';

const BASE_URL = 'http://127.0.0.1';

/**
 * The real server (src/runtime.ts) on `databaseUrl`, listening on a port the system picks (PORT=0), and the
 * way in to it: `app.inject` on BASE_URL, the origin the session API wants.
 */
async function serveImported(
  databaseUrl: string,
): Promise<{ server: RunningServer; address: { baseUrl: string; fetch: Fetch } }> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, PORT: '0', BASE_URL, LOG_LEVEL: 'silent' });
  const server = await startServer(config, { logger: false });
  return { server, address: { baseUrl: BASE_URL, fetch: injectFetch(server.app, BASE_URL) } };
}

const OLD_PASSWORD = 'old-password';
const QQ_UIN = 1010553892; // > 2^31
const LIBRARY = { clientId: 'LibraryClient001', secret: '3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d' };
const LEGACY = { clientId: 'LegacyNoRedirect', secret: '9a8b7c6d-5e4f-4321-8765-43210fedcba9' };
const BANNED_UIN = 10003;
const BAN_REASON = '发布违规内容';
/** Go's SQLite driver writes a time.Time as text in this layout (CST, +08:00). */
const BANNED_UNTIL = '2099-06-01 12:00:00.5+08:00';

let dir: string;
let campuxFile: string;
let databaseUrl: string;

/** A Campux database file, as its GORM models created it. */
async function writeCampuxFile(file: string): Promise<void> {
  // Campux's argon2id parameters (docs/interface.md#resources: `$argon2id$v=19$m=65536,t=1,p=2$…`).
  const oldHash = await hash(OLD_PASSWORD, { memoryCost: 65536, timeCost: 1, parallelism: 2 });
  expect(oldHash).toMatch(/^\$argon2id\$v=19\$m=65536,t=1,p=2\$/);
  const db = new SqliteDatabase(file);
  // The columns GORM derives from Campux's AccountPO and OAuthAppPO (backend/database/po.go).
  db.exec(`
    create table account_pos (uin integer, pwd text, created_at datetime, user_group text, salt text);
    create table o_auth_app_pos (
      name text, emoji text, client_id text, client_secret text, created_at datetime, redirect_uris text
    );
    create table ban_infos (uin integer, op integer, comment text, start_time datetime, end_time datetime);
  `);
  const account = db.prepare(
    'insert into account_pos (uin, pwd, created_at, user_group, salt) values (?, ?, ?, ?, ?)',
  );
  account.run(QQ_UIN, oldHash, '2024-04-18 08:49:37.275+08:00', 'admin', 'c2FsdA');
  account.run(10002, oldHash, '2024-05-01 12:00:00.123456+08:00', 'member', 'c2FsdA');
  account.run(BANNED_UIN, oldHash, '2024-05-02 12:00:00+08:00', 'user', 'c2FsdA');
  const ban = db.prepare(
    'insert into ban_infos (uin, op, comment, start_time, end_time) values (?, ?, ?, ?, ?)',
  );
  // A ban that has ended (Campux lets the user in again) and one that lasts until 2099.
  ban.run(QQ_UIN, 10002, 'spam', '2024-05-01 00:00:00+08:00', '2024-05-08 00:00:00+08:00');
  ban.run(BANNED_UIN, QQ_UIN, BAN_REASON, '2024-06-01 12:00:00+08:00', BANNED_UNTIL);
  const app = db.prepare(
    'insert into o_auth_app_pos (name, emoji, client_id, client_secret, created_at, redirect_uris) values (?, ?, ?, ?, ?, ?)',
  );
  app.run(
    'Library',
    '📚',
    LIBRARY.clientId,
    LIBRARY.secret,
    '2024-04-20 10:00:00.000+08:00',
    // util.StrArray's Value() is json.Marshal's []byte, which the driver binds as a BLOB (Go escapes & as \u0026).
    Buffer.from(
      JSON.stringify([
        'https://library.example.edu/callback',
        'https://library.example.edu/callback2?a=1&b=2',
      ]).replace(/&/g, '\\u0026'),
    ),
  );
  app.run('Legacy Forum', '💬', LEGACY.clientId, LEGACY.secret, '2024-04-21 10:00:00.000+08:00', null);
  db.close();
}

const importCampux = () => runCli(['import-campux', '--sqlite', campuxFile], { DATABASE_URL: databaseUrl });

describe('campus-sso import-campux', () => {
  let firstReport: CampuxImportReport;
  let server: RunningServer;
  let sso: ServerAddress;

  beforeAll(async () => {
    await ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'campus-sso-import-'));
    campuxFile = join(dir, 'campux.db');
    databaseUrl = `sqlite:${join(dir, 'campus-sso.sqlite')}`;
    await writeCampuxFile(campuxFile);
    const result = await importCampux();
    expect(result.code, result.stderr).toBe(0);
    firstReport = JSON.parse(result.stdout) as CampuxImportReport;

    // The real server on the imported database.
    ({ server, address: sso } = await serveImported(databaseUrl));
  }, 180_000);

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports what it created: 3 users, the ban still running, 2 apps, and the app without redirect URIs', () => {
    expect(firstReport).toEqual({
      users: {
        created: 3,
        existing: 0,
        failed: [],
        banned: [{ uin: BANNED_UIN, reason: BAN_REASON, until: '2099-06-01T04:00:00.500Z' }],
      },
      apps: {
        created: 2,
        existing: 0,
        failed: [],
        without_redirect_uris: [{ client_id: LEGACY.clientId, name: 'Legacy Forum' }],
        dropped_redirect_uris: [],
        kept_redirect_uris: [],
      },
    });
  });

  it('keeps the password: the user signs in over HTTP with the old password', async () => {
    const browser = new Browser(sso);
    const response = await browser.login(QQ_UIN, OLD_PASSWORD);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown }).data).toEqual({ uin: QQ_UIN, user_group: 'admin' });
    expect((await new Browser(sso).login(QQ_UIN, 'not-the-old-password')).status).toBe(401);
  });

  it('re-hashes an imported password with the current parameters at its first sign-in', async () => {
    expect((await new Browser(sso).login(10002, OLD_PASSWORD)).status).toBe(200);
    const stored = await server.ctx.store.users.find(10002);
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect((await new Browser(sso).login(10002, OLD_PASSWORD)).status).toBe(200);
  });

  it('converts created_at from Campux local time (+08:00) to UTC with milliseconds', async () => {
    const browser = new Browser(sso);
    expect((await browser.login(QQ_UIN, OLD_PASSWORD)).status).toBe(200);
    const me = (await (await browser.call('GET', '/v1/account/me')).json()) as {
      data: Record<string, unknown>;
    };
    expect(me.data).toEqual({ uin: QQ_UIN, user_group: 'admin', created_at: '2024-04-18T00:49:37.275Z' });
    expect(new Date((await server.ctx.store.users.find(10002))?.createdAt ?? 0).toISOString()).toBe(
      '2024-05-01T04:00:00.123Z',
    );
  });

  it("keeps each app's client_id and secret: the old secret authenticates, stored only as a hash", async () => {
    expect(await server.ctx.apps.authenticate(LIBRARY.clientId, LIBRARY.secret)).toMatchObject({
      clientId: LIBRARY.clientId,
    });
    const app = await server.ctx.store.apps.find(LIBRARY.clientId);
    expect(app).toMatchObject({
      clientId: LIBRARY.clientId,
      name: 'Library',
      emoji: '📚',
      redirectUris: ['https://library.example.edu/callback', 'https://library.example.edu/callback2?a=1&b=2'],
      disabled: false,
    });
    expect(app?.secretHash).not.toContain(LIBRARY.secret);
    expect(await server.ctx.apps.authenticate(LIBRARY.clientId, LEGACY.secret)).toBeUndefined();
    expect(await server.ctx.apps.authenticate(LEGACY.clientId, LEGACY.secret)).toMatchObject({
      clientId: LEGACY.clientId,
    });
    expect(await server.ctx.store.apps.find(LEGACY.clientId)).toMatchObject({
      name: 'Legacy Forum',
      emoji: '💬',
      redirectUris: [],
    });
  });

  it('is idempotent: a second run creates nothing and reports what exists', async () => {
    const before = await server.ctx.store.users.list({ offset: 0, limit: 100 });
    const again = await importCampux();
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      users: {
        created: 0,
        existing: 3,
        failed: [],
        banned: [{ uin: BANNED_UIN, reason: BAN_REASON, until: '2099-06-01T04:00:00.500Z' }],
      },
      apps: {
        created: 0,
        existing: 2,
        failed: [],
        without_redirect_uris: [{ client_id: LEGACY.clientId, name: 'Legacy Forum' }],
        dropped_redirect_uris: [],
        kept_redirect_uris: [],
      },
    });
    expect(await server.ctx.store.users.list({ offset: 0, limit: 100 })).toEqual(before);
    expect((await server.ctx.store.apps.list()).map((a) => a.clientId).sort()).toEqual(
      [LEGACY.clientId, LIBRARY.clientId].sort(),
    );
  });

  it('imports a user whose Campux ban has not ended as disabled: the old password no longer signs in', async () => {
    expect((await server.ctx.store.users.find(BANNED_UIN))?.disabled).toBe(true);
    expect((await new Browser(sso).login(BANNED_UIN, OLD_PASSWORD)).status).not.toBe(200);
  });

  it('imports a user whose Campux ban has ended as enabled', async () => {
    expect((await server.ctx.store.users.find(QQ_UIN))?.disabled).toBe(false);
  });

  it('exits 2 with the usage when --sqlite is missing or the file does not exist', async () => {
    const missing = await runCli(['import-campux'], { DATABASE_URL: databaseUrl });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--sqlite/);
    const absent = await runCli(['import-campux', '--sqlite', join(dir, 'nope.db')], {
      DATABASE_URL: databaseUrl,
    });
    expect(absent.code).toBe(2);
    expect(absent.stderr).toMatch(/no such file/);
  });

  it('exits non-zero with a message for a file that is not a Campux database', async () => {
    const other = join(dir, 'other.db');
    const db = new SqliteDatabase(other);
    db.exec('create table notes (id integer)');
    db.close();
    const result = await runCli(['import-campux', '--sqlite', other], { DATABASE_URL: databaseUrl });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Campux/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('campus-sso import-campux on a Campux version without redirect_uris', () => {
  it('imports its apps and lists every one of them as having no redirect URIs', async () => {
    await ensureBuilt();
    const folder = mkdtempSync(join(tmpdir(), 'campus-sso-import-old-'));
    try {
      const file = join(folder, 'campux.db');
      const db = new SqliteDatabase(file);
      db.exec(`create table o_auth_app_pos (
        name text, emoji text, client_id text, client_secret text, created_at datetime
      )`);
      db.prepare('insert into o_auth_app_pos values (?, ?, ?, ?, ?)').run(
        'Old App',
        '🎓',
        'OldAppClientId01',
        LIBRARY.secret,
        '2024-04-18 08:49:37.275+08:00',
      );
      db.close();
      const result = await runCli(['import-campux', '--sqlite', file], {
        DATABASE_URL: `sqlite:${join(folder, 'sso.sqlite')}`,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        users: { created: 0, existing: 0, failed: [], banned: [] },
        apps: {
          created: 1,
          existing: 0,
          failed: [],
          without_redirect_uris: [{ client_id: 'OldAppClientId01', name: 'Old App' }],
          dropped_redirect_uris: [],
          kept_redirect_uris: [],
        },
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('campus-sso import-campux --mongo-export DIR', () => {
  /**
   * What `mongoexport --collection=C --out=DIR/C.json` writes for Campux's collections: one Extended JSON
   * document per line, relaxed by default (plain numbers, ISO dates) or canonical with --jsonFormat=canonical.
   */
  async function writeMongoExport(folder: string): Promise<void> {
    const oldHash = await hash(OLD_PASSWORD, { memoryCost: 65536, timeCost: 1, parallelism: 2 });
    const lines = (...documents: unknown[]) => documents.map((d) => JSON.stringify(d)).join('\n') + '\n';
    writeFileSync(
      join(folder, 'account.json'),
      lines(
        {
          _id: { $oid: '66209a1f8a3c2b0012345678' },
          uin: QQ_UIN,
          pwd: oldHash,
          created_at: { $date: '2024-04-18T00:49:37.275Z' },
          user_group: 'admin',
          salt: 'c2FsdA',
        },
        {
          _id: { $oid: '66209a1f8a3c2b0012345679' },
          uin: { $numberLong: String(BANNED_UIN) },
          pwd: oldHash,
          created_at: { $date: { $numberLong: '1714622400000' } },
          user_group: 'user',
          salt: 'c2FsdA',
        },
      ),
    );
    writeFileSync(
      join(folder, 'oauth_app.json'),
      lines(
        {
          _id: { $oid: '66209a1f8a3c2b00123456aa' },
          name: 'Library',
          emoji: '📚',
          client_id: LIBRARY.clientId,
          client_secret: LIBRARY.secret,
          redirect_uris: ['https://library.example.edu/callback'],
          created_at: { $date: '2024-04-20T02:00:00Z' },
        },
        {
          _id: { $oid: '66209a1f8a3c2b00123456ab' },
          name: 'Legacy Forum',
          emoji: '💬',
          client_id: LEGACY.clientId,
          client_secret: LEGACY.secret,
          redirect_uris: null,
          created_at: { $date: '2024-04-21T02:00:00Z' },
        },
      ),
    );
    writeFileSync(
      join(folder, 'ban_list.json'),
      lines({
        _id: { $oid: '66209a1f8a3c2b00123456bb' },
        uin: BANNED_UIN,
        op: QQ_UIN,
        comment: BAN_REASON,
        start_time: { $date: '2024-06-01T04:00:00Z' },
        end_time: { $date: '2099-06-01T04:00:00.5Z' },
      }),
    );
  }

  it('imports accounts, apps with their redirect URIs, and running bans from the mongoexport files', async () => {
    await ensureBuilt();
    const folder = mkdtempSync(join(tmpdir(), 'campus-sso-import-mongo-'));
    try {
      await writeMongoExport(folder);
      const databaseUrl = `sqlite:${join(folder, 'sso.sqlite')}`;
      const result = await runCli(['import-campux', '--mongo-export', folder], { DATABASE_URL: databaseUrl });
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        users: {
          created: 2,
          existing: 0,
          failed: [],
          banned: [{ uin: BANNED_UIN, reason: BAN_REASON, until: '2099-06-01T04:00:00.500Z' }],
        },
        apps: {
          created: 2,
          existing: 0,
          failed: [],
          without_redirect_uris: [{ client_id: LEGACY.clientId, name: 'Legacy Forum' }],
          dropped_redirect_uris: [],
          kept_redirect_uris: [],
        },
      });

      const { server: imported, address } = await serveImported(databaseUrl);
      try {
        expect((await new Browser(address).login(QQ_UIN, OLD_PASSWORD)).status).toBe(200);
        expect(await imported.ctx.store.users.find(QQ_UIN)).toMatchObject({
          userGroup: 'admin',
          createdAt: Date.parse('2024-04-18T00:49:37.275Z'),
          disabled: false,
        });
        expect(await imported.ctx.store.users.find(BANNED_UIN)).toMatchObject({
          createdAt: 1714622400000,
          disabled: true,
        });
        expect(await imported.ctx.apps.authenticate(LIBRARY.clientId, LIBRARY.secret)).toMatchObject({
          clientId: LIBRARY.clientId,
        });
        expect(await imported.ctx.store.apps.find(LIBRARY.clientId)).toMatchObject({
          redirectUris: ['https://library.example.edu/callback'],
        });
      } finally {
        await imported.close();
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);

  it('exits 2 when neither or both of --sqlite and --mongo-export are given', async () => {
    await ensureBuilt();
    const both = await runCli(['import-campux', '--sqlite', 'a.db', '--mongo-export', 'dir'], {
      DATABASE_URL: 'sqlite::memory:',
    });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/either --sqlite FILE or --mongo-export DIR/);
  });
});

describe('campus-sso import-campux, redirect URIs Campux accepted and campus-sso refuses', () => {
  const CLUBS = { clientId: 'ClubsClient00001', secret: 'c1b2c3d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d' };
  const NO_PATH = 'https://clubs.school.edu';
  const PLAIN_HTTP = 'http://10.0.0.5:8080/callback';
  const SCRIPT = 'javascript:alert(1)';
  const GOOD = 'https://clubs.school.edu/welcome';
  let folder: string;
  let file: string;

  beforeAll(async () => {
    await ensureBuilt();
    folder = mkdtempSync(join(tmpdir(), 'campus-sso-import-uris-'));
    file = join(folder, 'campux.db');
    const db = new SqliteDatabase(file);
    db.exec(`create table o_auth_app_pos (
      name text, emoji text, client_id text, client_secret text, created_at datetime, redirect_uris blob
    )`);
    db.prepare('insert into o_auth_app_pos values (?, ?, ?, ?, ?, ?)').run(
      'Clubs',
      '🎭',
      CLUBS.clientId,
      CLUBS.secret,
      '2024-04-18 08:49:37.275+08:00',
      Buffer.from(JSON.stringify([NO_PATH, PLAIN_HTTP, GOOD, SCRIPT, GOOD])),
    );
    db.close();
  }, 180_000);

  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /** Imports into a fresh database with `args`; answers the report and what app-info says for each URI. */
  async function importWith(
    args: string[],
  ): Promise<{ report: CampuxImportReport; status: Map<string, number> }> {
    const databaseUrl = `sqlite:${join(mkdtempSync(join(folder, 'db-')), 'campus-sso.sqlite')}`;
    const result = await runCli(['import-campux', '--sqlite', file, ...args], { DATABASE_URL: databaseUrl });
    expect(result.code, result.stderr).toBe(0);
    const { server, address } = await serveImported(databaseUrl);
    try {
      const status = new Map<string, number>();
      for (const uri of [NO_PATH, PLAIN_HTTP, GOOD]) {
        const query = new URLSearchParams({ client_id: CLUBS.clientId, redirect_uri: uri });
        status.set(uri, (await address.fetch(`/v1/oauth2/app-info?${query.toString()}`)).status);
      }
      return { report: JSON.parse(result.stdout) as CampuxImportReport, status };
    } finally {
      await server.close();
    }
  }

  it('reports every redirect URI it drops, with its reason', async () => {
    const { report, status } = await importWith([]);
    expect(report.apps.dropped_redirect_uris).toEqual([
      {
        client_id: CLUBS.clientId,
        uri: NO_PATH,
        reason: 'is not in canonical form; write it as https://clubs.school.edu/',
      },
      {
        client_id: CLUBS.clientId,
        uri: PLAIN_HTTP,
        reason: 'must use https (plain http only for localhost, 127.0.0.1 or [::1])',
      },
      { client_id: CLUBS.clientId, uri: SCRIPT, reason: 'must use https' },
      { client_id: CLUBS.clientId, uri: GOOD, reason: 'listed twice' },
    ]);
    expect(report.apps.kept_redirect_uris).toEqual([]);
    expect(Object.fromEntries(status)).toEqual({ [NO_PATH]: 400, [PLAIN_HTTP]: 400, [GOOD]: 200 });
  }, 60_000);

  it('keeps a Campux-era URI named with --keep-redirect-uri, but never one of another scheme', async () => {
    const keep = [NO_PATH, PLAIN_HTTP, SCRIPT].flatMap((uri) => ['--keep-redirect-uri', uri]);
    const { report, status } = await importWith(keep);
    expect(report.apps.kept_redirect_uris.map((kept) => kept.uri)).toEqual([NO_PATH, PLAIN_HTTP]);
    expect(report.apps.dropped_redirect_uris.map((dropped) => dropped.uri)).toEqual([SCRIPT, GOOD]);
    expect(Object.fromEntries(status)).toEqual({ [NO_PATH]: 200, [PLAIN_HTTP]: 200, [GOOD]: 200 });
  }, 60_000);
});
