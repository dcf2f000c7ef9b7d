/**
 * Upgrades from every landed build (docs/architecture.md#migrations; ory/hydra's migratest is the model): each
 * fixture of test/fixtures/upgrade is the database a landed build's own code left (its migrations in its own
 * order, a user, an app, a session, codes and tokens; test/fixtures/make-upgrade-fixtures.ts makes them).
 * The current build migrates it, must end with the schema a fresh database gets, keeps the old rows, and then
 * serves them over HTTP: the user signs in with their password, the old app exchanges a code with its old
 * secret, and the access token answers at userinfo and get-user-info.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { migrationProvider } from '../../src/storage/migrations/index.js';
import { openStore } from '../../src/storage/open-store.js';
import { SqliteDatabase } from '../../src/storage/sqlite-driver.js';
import { ensureBuilt, runCli } from '../cli/cli-process.js';
import { openFreshStore } from '../helpers/databases.js';
import { describeEachDatabase } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import {
  type DatabaseKind,
  TEST_DATABASE_URL,
  freshPostgresSchema,
  startTestServer,
} from '../helpers/server.js';
import {
  FIXTURE_PASSWORD,
  FIXTURE_REDIRECT_URI,
  FIXTURE_SCHEMA,
  FIXTURE_SECRET_KEY,
} from '../fixtures/upgrade-fixtures.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'upgrade');

/** What test/fixtures/upgrade/builds.json says of one fixture. */
interface Made {
  readonly sha: string;
  readonly what: string;
  readonly migrations: readonly string[];
  readonly uin: number;
  readonly client_id: string;
  readonly client_secret: string;
}

const BUILDS = JSON.parse(readFileSync(join(FIXTURES, 'builds.json'), 'utf8')) as Record<
  string,
  Record<DatabaseKind, Made>
>;

/** The migrations on main when issue 22 was filed (0001–0007); the rest are newer. */
const LANDED = [
  '0001-initial',
  '0002-security-events',
  '0003-sessions-logout',
  '0004-second-factor',
  '0005-people-audit',
  '0006-app-launcher',
  '0006-readiness',
  '0007-shared-pending-sign-ins',
];

const ALL_MIGRATIONS = Object.keys(await migrationProvider.getMigrations()).sort();

/** A database of one kind restored from a fixture (or made empty), and how to remove it. */
interface Restored {
  readonly url: string;
  drop(): Promise<void>;
}

function schemaOf(url: string): string {
  const options = new URL(url).searchParams.get('options') ?? '';
  const schema = /search_path=(\w+)/.exec(options)?.[1];
  if (!schema) throw new Error(`no search_path in ${url}`);
  return schema;
}

async function onPostgres<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The fixture of `sha` as a database of its own: a copy of the SQLite file, or the dump in a fresh schema. */
async function restore(database: DatabaseKind, sha: string): Promise<Restored> {
  if (database === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'campus-sso-upgrade-'));
    const file = join(dir, 'campus-sso.sqlite');
    copyFileSync(join(FIXTURES, `${sha}.sqlite`), file);
    return { url: `sqlite:${file}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const fresh = await freshPostgresSchema();
  const schema = schemaOf(fresh.url);
  const dump = readFileSync(join(FIXTURES, `${sha}.postgres.sql`), 'utf8')
    .split('\n')
    // psql's meta-commands (\restrict) and the schema, which exists already under its new name.
    .filter((line) => !line.startsWith('\\') && line !== `CREATE SCHEMA ${FIXTURE_SCHEMA};`)
    .join('\n')
    .replaceAll(`${FIXTURE_SCHEMA}.`, `${schema}.`);
  await onPostgres(TEST_DATABASE_URL, (client) => client.query(dump));
  return fresh;
}

async function emptyDatabase(database: DatabaseKind): Promise<Restored> {
  if (database === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'campus-sso-upgrade-'));
    return {
      url: `sqlite:${join(dir, 'campus-sso.sqlite')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  return freshPostgresSchema();
}

type Row = Record<string, unknown>;

/**
 * A schema as sets: each table's columns by name, each index by name (column order is not compared), and on
 * PostgreSQL each table's storage settings (`fillfactor`, 0017).
 */
interface Shape {
  readonly tables: Record<string, Record<string, Row>>;
  readonly indexes: Record<string, Row>;
  readonly storage: Record<string, readonly string[]>;
}

function sqliteShape(file: string): Shape {
  const db = new SqliteDatabase(file, { readonly: true });
  try {
    const tables: Shape['tables'] = {};
    const indexes: Shape['indexes'] = {};
    const names = db
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
      )
      .all() as { name: string }[];
    for (const { name } of names) {
      if (name.startsWith('kysely_')) continue;
      const columns = db.prepare(`pragma table_info("${name}")`).all() as Row[];
      tables[name] = Object.fromEntries(
        columns.map(({ name: column, type, notnull, dflt_value, pk }) => [
          column,
          { type, notnull, dflt_value, pk },
        ]),
      );
      for (const index of db.prepare(`pragma index_list("${name}")`).all() as Row[]) {
        const indexName = String(index.name);
        const columnsOf = (db.prepare(`pragma index_info("${indexName}")`).all() as Row[]).map((c) => c.name);
        const sql = db.prepare('select sql from sqlite_master where name = ?').pluck().get(indexName);
        indexes[indexName] = {
          table: name,
          unique: index.unique,
          origin: index.origin,
          partial: index.partial,
          columns: columnsOf,
          sql,
        };
      }
    }
    return { tables, indexes, storage: {} };
  } finally {
    db.close();
  }
}

async function postgresShape(url: string): Promise<Shape> {
  const schema = schemaOf(url);
  return onPostgres(url, async (client) => {
    const tables: Shape['tables'] = {};
    const columns = await client.query<Row & { table_name: string; column_name: string }>(
      `select table_name, column_name, data_type, is_nullable, column_default
         from information_schema.columns where table_schema = $1 and table_name not like 'kysely_%'
         order by table_name, column_name`,
      [schema],
    );
    for (const { table_name, column_name, ...rest } of columns.rows) {
      tables[table_name] = { ...tables[table_name], [column_name]: rest };
    }
    const indexes = await client.query<{ indexname: string; tablename: string; indexdef: string }>(
      `select indexname, tablename, indexdef from pg_indexes
         where schemaname = $1 and tablename not like 'kysely_%' order by indexname`,
      [schema],
    );
    const storage = await client.query<{ relname: string; reloptions: string[] }>(
      `select c.relname, c.reloptions from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = $1 and c.relkind = 'r' and c.reloptions is not null order by c.relname`,
      [schema],
    );
    return {
      tables,
      storage: Object.fromEntries(storage.rows.map((t) => [t.relname, [...t.reloptions].sort()])),
      indexes: Object.fromEntries(
        indexes.rows.map((i) => [
          i.indexname,
          { table: i.tablename, def: i.indexdef.replaceAll(`${schema}.`, '') },
        ]),
      ),
    };
  });
}

function shape(url: string): Promise<Shape> {
  return url.startsWith('sqlite:')
    ? Promise.resolve(sqliteShape(url.slice('sqlite:'.length)))
    : postgresShape(url);
}

/** The schema a fresh database of this kind gets from the current build. */
const freshShapes = new Map<DatabaseKind, Shape>();
async function freshShape(database: DatabaseKind): Promise<Shape> {
  const known = freshShapes.get(database);
  if (known) return known;
  const fresh = await openFreshStore(database);
  try {
    await fresh.store.migrate();
    const made = await shape(fresh.url);
    freshShapes.set(database, made);
    return made;
  } finally {
    await fresh.dispose();
  }
}

/**
 * The one way a landed build's schema may stay different after the upgrade: the foundation build (1aad2f1)
 * made access_tokens_family_id over every row; 0001-initial was changed afterwards (e2712a0) to index only
 * rows with a family. Both serve the same look-ups; the old one is larger. Compared here as "an index on
 * access_tokens(family_id)".
 */
function withoutKnownDifferences(sha: string, made: Shape): Shape {
  if (sha !== '1aad2f1') return made;
  const { access_tokens_family_id: index, ...indexes } = made.indexes;
  expect(index?.table).toBe('access_tokens');
  expect(index?.columns ?? index?.def).toEqual(
    index?.columns ? ['family_id'] : expect.stringMatching(/\(family_id\)/),
  );
  return { ...made, indexes };
}

async function count(url: string, table: string): Promise<number> {
  if (url.startsWith('sqlite:')) {
    const db = new SqliteDatabase(url.slice('sqlite:'.length), { readonly: true });
    try {
      return Number(db.prepare(`select count(*) from ${table}`).pluck().get());
    } finally {
      db.close();
    }
  }
  return onPostgres(url, async (client) =>
    Number((await client.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]?.n),
  );
}

/** The migrations the database ran, in the order it ran them. */
async function executedInOrder(url: string): Promise<string[]> {
  const query = 'select name from kysely_migration order by timestamp, name';
  if (url.startsWith('sqlite:')) {
    const db = new SqliteDatabase(url.slice('sqlite:'.length), { readonly: true });
    try {
      return db.prepare(query).pluck().all() as string[];
    } finally {
      db.close();
    }
  }
  return onPostgres(url, async (client) =>
    (await client.query<{ name: string }>(query)).rows.map((r) => r.name),
  );
}

/** The migrations the database ran, by name. */
async function executed(url: string): Promise<string[]> {
  return (await executedInOrder(url)).sort();
}

/**
 * Runs these migrations of the current build (and no others) on the database at `url`, the pending ones by
 * name as `migrate()` does.
 */
async function migrateOnly(url: string, names: readonly string[]): Promise<void> {
  const all = await migrationProvider.getMigrations();
  const sqlite = url.startsWith('sqlite:');
  const db = new Kysely<unknown>({
    dialect: sqlite
      ? new SqliteDialect({ database: new SqliteDatabase(url.slice('sqlite:'.length)) })
      : new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }),
  });
  try {
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => Object.fromEntries(names.map((name) => [name, all[name]!])) },
      allowUnorderedMigrations: true,
      ...(sqlite ? {} : { migrationTableSchema: schemaOf(url) }),
    });
    // Kysely's migrator lists the tables of every schema; another suite dropping its schema meanwhile fails
    // that listing (3F000), as it does for the store (sql-store.ts): a second look passes.
    for (let attempt = 1; ; attempt++) {
      const { error } = await migrator.migrateToLatest();
      if (!error) break;
      if ((error as { code?: string }).code !== '3F000' || attempt >= 5) throw error;
    }
  } finally {
    await db.destroy();
  }
}

function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
}

/** The fixture's user signs in, its app gets tokens for them, and the tokens answer at both user endpoints. */
async function useAsBefore(baseUrl: string, made: Made): Promise<void> {
  const browser = new Browser(baseUrl);
  const login = await browser.login(made.uin, FIXTURE_PASSWORD);
  expect(login.status, await login.clone().text()).toBe(200);

  const authorize = await browser.call('POST', '/v1/oauth2/authorize', {
    client_id: made.client_id,
    redirect_uri: FIXTURE_REDIRECT_URI,
    response_type: 'code',
    scope: 'openid offline_access',
    nonce: 'upgrade',
    state: 'upgrade',
    decision: 'allow',
  });
  const redirect = await json<{ data: { redirect_to: string } }>(authorize);
  expect(authorize.status, JSON.stringify(redirect)).toBe(200);
  const code = new URL(redirect.data.redirect_to).searchParams.get('code');
  expect(code).toBeTruthy();

  const token = await fetch(`${baseUrl}/v1/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basic(made.client_id, made.client_secret),
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: code ?? '',
      redirect_uri: FIXTURE_REDIRECT_URI,
    }),
  });
  const tokens = await json<{ access_token: string; refresh_token: string; id_token: string }>(token);
  expect(token.status, JSON.stringify(tokens)).toBe(200);
  expect(tokens.id_token.split('.')).toHaveLength(3);

  const bearer = { authorization: `Bearer ${tokens.access_token}` };
  const userinfo = await fetch(`${baseUrl}/v1/oauth2/userinfo`, { headers: bearer });
  expect(userinfo.status).toBe(200);
  expect((await json<{ sub: string }>(userinfo)).sub).toBe(String(made.uin));
  const legacy = await fetch(`${baseUrl}/v1/oauth2/get-user-info`, { headers: bearer });
  expect(legacy.status).toBe(200);
  expect(JSON.stringify(await legacy.json())).toContain(String(made.uin));

  // The app authenticates again with its old secret, rotating the refresh token it was just given.
  const refresh = await fetch(`${baseUrl}/v1/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basic(made.client_id, made.client_secret),
    },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
  });
  expect(refresh.status, await refresh.clone().text()).toBe(200);
}

// The concurrent-upgrade test runs the built CLI; building it on a loaded machine takes more than a test's minute.
beforeAll(ensureBuilt, 300_000);

describeEachDatabase('upgrades', (database) => {
  let restored: Restored | undefined;
  afterEach(async () => {
    await restored?.drop();
    restored = undefined;
  });

  for (const [sha, kinds] of Object.entries(BUILDS)) {
    const made = kinds[database] as Made | undefined;
    it(`${sha} (${made?.what ?? 'no fixture'}): migrates to the current schema, keeps its rows, and serves them`, async () => {
      if (!made) throw new Error(`test/fixtures/upgrade has no ${database} fixture of ${sha}`);
      restored = await restore(database, sha);
      const url = restored.url;
      // The fixture is what that build ran, in its order.
      expect(await executedInOrder(url)).toEqual(made.migrations);
      const before = {
        sessions: await count(url, 'sessions'),
        codes: await count(url, 'authorization_codes'),
        accessTokens: await count(url, 'access_tokens'),
        refreshTokens: await count(url, 'refresh_tokens'),
      };
      expect(
        Object.values(before).every((n) => n >= 1),
        JSON.stringify(before),
      ).toBe(true);

      const server = await startTestServer({ databaseUrl: url, env: { SECRET_KEY: FIXTURE_SECRET_KEY } });
      try {
        expect(await executed(url)).toEqual(ALL_MIGRATIONS);
        expect(withoutKnownDifferences(sha, await shape(url))).toEqual(
          withoutKnownDifferences(sha, await freshShape(database)),
        );
        expect(await count(url, 'sessions')).toBeGreaterThanOrEqual(before.sessions);
        expect(await count(url, 'authorization_codes')).toBeGreaterThanOrEqual(before.codes);
        expect(await count(url, 'access_tokens')).toBeGreaterThanOrEqual(before.accessTokens);
        expect(await count(url, 'refresh_tokens')).toBeGreaterThanOrEqual(before.refreshTokens);
        await useAsBefore(server.baseUrl, made);
      } finally {
        await server.close();
      }
    });
  }

  it('lets several `campus-sso migrate` processes upgrade one out-of-order database at once', async () => {
    // feat(sessions) ran 0003 alone after 0001: 0002 and 0004–0007 are all behind it by name.
    restored = await restore(database, '6dfba90');
    const env = { DATABASE_URL: restored.url, SECRET_KEY: FIXTURE_SECRET_KEY };
    const results = await Promise.all(Array.from({ length: 3 }, () => runCli(['migrate'], env)));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const applied = results.flatMap((r) => (JSON.parse(r.stdout) as { applied: string[] }).applied);
    expect(applied.sort()).toEqual(
      ALL_MIGRATIONS.filter((name) => !BUILDS['6dfba90']?.[database].migrations.includes(name)),
    );
    expect(await executed(restored.url)).toEqual(ALL_MIGRATIONS);
    expect(await shape(restored.url)).toEqual(await freshShape(database));
  });

  it('leaves a database as it was when an upgrade fails, and upgrades it on the next attempt', async () => {
    // feat(sessions) ran 0001 and 0003. An index in the way of 0004's third statement fails the upgrade
    // after 0002 and two of 0004's tables have run.
    restored = await restore(database, '6dfba90');
    const url = restored.url;
    const before = await shape(url);
    const inTheWay = async (statement: string): Promise<void> => {
      if (url.startsWith('sqlite:')) {
        const db = new SqliteDatabase(url.slice('sqlite:'.length));
        try {
          db.exec(statement);
        } finally {
          db.close();
        }
      } else {
        await onPostgres(url, (client) => client.query(statement));
      }
    };
    await inTheWay('create index passkeys_uin on users (uin)');
    const blocked = await shape(url);
    const store = (): ReturnType<typeof openStore> =>
      openStore(
        database === 'sqlite'
          ? { kind: 'sqlite', file: url.slice('sqlite:'.length), url }
          : { kind: 'postgres', url },
      );
    const first = await store();
    try {
      await expect(first.migrate()).rejects.toThrow(/passkeys_uin/);
    } finally {
      await first.close();
    }
    expect(await executed(url)).toEqual(['0001-initial', '0003-sessions-logout']);
    expect(await shape(url)).toEqual(blocked);

    await inTheWay('drop index passkeys_uin');
    expect(await shape(url)).toEqual(before);
    const second = await store();
    try {
      expect(await second.migrate()).toEqual(
        ALL_MIGRATIONS.filter((name) => name !== '0001-initial' && name !== '0003-sessions-logout'),
      );
    } finally {
      await second.close();
    }
    expect(await shape(url)).toEqual(await freshShape(database));
  });

  // Branches land in any order: each migration added since 0007 gives the fresh schema whether it runs
  // first or last of them (docs/architecture.md#migrations).
  const added = ALL_MIGRATIONS.filter((name) => !LANDED.includes(name));
  for (const name of added) {
    it(`runs ${name} before every other migration added since 0007, and the rest after it`, async () => {
      restored = await emptyDatabase(database);
      await migrateOnly(restored.url, [...LANDED, name]);
      await migrateOnly(restored.url, ALL_MIGRATIONS);
      expect(await shape(restored.url)).toEqual(await freshShape(database));
    });
  }
  if (added.length > 1) {
    it('runs the migrations added since 0007 in reverse order, one at a time', async () => {
      restored = await emptyDatabase(database);
      const ran = [...LANDED];
      for (const name of [...added].reverse()) {
        ran.push(name);
        await migrateOnly(restored.url, ran);
      }
      expect(await shape(restored.url)).toEqual(await freshShape(database));
    });
  }

  describe('the current build', () => {
    it('migrates a fresh database to the same schema twice over (the second time a no-op)', async () => {
      restored = await emptyDatabase(database);
      const store = await openStore(
        database === 'sqlite'
          ? { kind: 'sqlite', file: restored.url.slice('sqlite:'.length), url: restored.url }
          : { kind: 'postgres', url: restored.url },
      );
      try {
        expect(await store.migrate()).toEqual(ALL_MIGRATIONS);
        expect(await store.migrate()).toEqual([]);
      } finally {
        await store.close();
      }
      expect(await shape(restored.url)).toEqual(await freshShape(database));
    });

    it('leaves half of each page of the tables whose rows are updated once for that update (0017, PostgreSQL)', async () => {
      const { storage } = await freshShape(database);
      expect(storage).toEqual(
        database === 'sqlite'
          ? {}
          : { authorization_codes: ['fillfactor=50'], refresh_tokens: ['fillfactor=50'] },
      );
    });

    it("migrates a database at main's head before issue 22 (0001–0007) with the migrations added since", async () => {
      restored = await emptyDatabase(database);
      const url = restored.url;
      await migrateOnly(url, LANDED);
      const server = await startTestServer({ databaseUrl: url });
      try {
        expect(await executed(url)).toEqual(ALL_MIGRATIONS);
        expect(await shape(url)).toEqual(await freshShape(database));
      } finally {
        await server.close();
      }
    });
  });
});
