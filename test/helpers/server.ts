/**
 * Starts the real server on a free port over a fresh database — SQLite in a temp folder, or a fresh
 * PostgreSQL schema on TEST_DATABASE_URL — and talks to it over real HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type AppContext, createAppContext } from '../../src/app-context.js';
import type { Clock } from '../../src/clock.js';
import { type Config, loadConfig } from '../../src/config/config.js';
import { buildServer } from '../../src/http/server.js';
import { LogoutDeliveryWorker } from '../../src/oauth/logout-delivery.js';
import { openStore } from '../../src/storage/open-store.js';

export type DatabaseKind = 'sqlite' | 'postgres';

export const DATABASES: readonly DatabaseKind[] = ['sqlite', 'postgres'];

/** docs/interface.md#configuration: PostgreSQL needs SECRET_KEY, shared by every instance of one database. */
export const TEST_SECRET_KEY = 'test-secret-key-shared-by-every-instance-0123456789';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestServer {
  readonly baseUrl: string;
  /** The DATABASE_URL this instance uses, so another instance can join it. */
  readonly databaseUrl: string;
  readonly ctx: AppContext;
  readonly config: Config;
  /** The back-channel logout worker, started as the runtime starts it (src/runtime.ts). */
  readonly logoutDeliveries: LogoutDeliveryWorker;
  close(): Promise<void>;
}

export interface TestServerOptions {
  readonly database?: DatabaseKind;
  /** Join an existing database (another instance's `databaseUrl`) instead of making a fresh one. */
  readonly databaseUrl?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly clock?: Clock;
  /**
   * The host name in BASE_URL (default 127.0.0.1). WebAuthn refuses an IP address as relying-party id, so a
   * browser test of passkeys uses `localhost`.
   */
  readonly baseUrlHost?: string;
}

/**
 * What every test server runs with unless a test says otherwise: admins need no second factor (the tests
 * of that rule set MFA_REQUIRED_GROUPS themselves), and PostgreSQL instances share one SECRET_KEY (SQLite
 * ones keep a key file beside their database).
 */
function testDefaults(databaseUrl: string): Record<string, string> {
  return {
    MFA_REQUIRED_GROUPS: '',
    ...(databaseUrl.startsWith('sqlite:') ? {} : { SECRET_KEY: TEST_SECRET_KEY }),
  };
}

/** A fresh PostgreSQL schema; answers its connection URL (search_path set) and a function to drop it. */
export async function freshPostgresSchema(): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.href,
    drop: async () => {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        await client.query(`drop schema if exists ${schema} cascade`);
      } finally {
        await client.end();
      }
    },
  };
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const database = options.database ?? 'sqlite';
  let databaseUrl: string;
  let cleanup: () => Promise<void>;
  if (options.databaseUrl) {
    databaseUrl = options.databaseUrl;
    cleanup = async () => undefined;
  } else if (database === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'campus-sso-test-'));
    databaseUrl = `sqlite:${join(dir, 'test.sqlite')}`;
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const schema = await freshPostgresSchema();
    databaseUrl = schema.url;
    cleanup = schema.drop;
  }
  const provisional = loadConfig({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    ...testDefaults(databaseUrl),
    ...options.env,
  });
  const store = openStore(provisional.database);
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    await cleanup();
    throw error;
  }
  // Listen first on port 0, then fix BASE_URL to the real port so Origin checks and the issuer match.
  const placeholder = createAppContext(provisional, store, options.clock ?? { now: () => Date.now() });
  const app0 = await buildServer(placeholder, { logger: false });
  await app0.listen({ port: 0, host: '127.0.0.1' });
  const address = app0.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await app0.close();

  const baseUrl = `http://${options.baseUrlHost ?? '127.0.0.1'}:${port}`;
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    PORT: String(port),
    BASE_URL: baseUrl,
    ...testDefaults(databaseUrl),
    ...options.env,
  });
  const ctx = createAppContext(config, store, options.clock ?? { now: () => Date.now() });
  const app = await buildServer(ctx, { logger: false });
  await app.listen({ port, host: '127.0.0.1' });
  const logoutDeliveries = new LogoutDeliveryWorker(ctx);
  logoutDeliveries.start(app.log);
  return {
    baseUrl,
    databaseUrl,
    ctx,
    config,
    logoutDeliveries,
    async close() {
      await app.close();
      await logoutDeliveries.stop();
      await store.close();
      await cleanup();
    },
  };
}
