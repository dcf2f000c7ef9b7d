/**
 * Starts the real server over a fresh database — SQLite in a temp folder, or a fresh PostgreSQL schema on
 * TEST_DATABASE_URL. With `transport: 'socket'` (the default) it listens on a port the OS picks, for suites
 * that need one (a browser, a third-party client, a raw socket); with `transport: 'inject'` it listens on
 * nothing and `server.fetch` reaches it through `app.inject` (./inject-fetch.ts). Either way `server.fetch`
 * is the suite's way in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { type AppContext, createAppContext } from '../../src/app-context.js';
import type { Clock } from '../../src/clock.js';
import { type Config, loadConfig } from '../../src/config/config.js';
import { buildServer } from '../../src/http/server.js';
import { LogoutDeliveryWorker } from '../../src/oauth/logout-delivery.js';
import { openStore } from '../../src/storage/open-store.js';
import { type Fetch, injectFetch, onServer } from './inject-fetch.js';

export type DatabaseKind = 'sqlite' | 'postgres';

/** Both, unless TEST_DATABASES=sqlite narrows them (`npm run test:fast`, the quick loop; `npm test` runs both). */
export const DATABASES: readonly DatabaseKind[] =
  process.env.TEST_DATABASES === 'sqlite' ? ['sqlite'] : ['sqlite', 'postgres'];

/** docs/interface.md#configuration: PostgreSQL needs SECRET_KEY, shared by every instance of one database. */
export const TEST_SECRET_KEY = 'test-secret-key-shared-by-every-instance-0123456789';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * How a suite reaches its server: `inject` in-process, without a port (the fast default for new suites);
 * `socket` over real HTTP, for a browser, a third-party client, a proxy or a raw socket.
 */
export type Transport = 'inject' | 'socket';

export interface TestServer {
  /** BASE_URL: the issuer. Over `inject` nothing listens there; use `fetch`. */
  readonly baseUrl: string;
  readonly transport: Transport;
  /** The global fetch's API, for a path on the server or one of its URLs, over the suite's transport. */
  readonly fetch: Fetch;
  /** The DATABASE_URL this instance uses, so another instance can join it. */
  readonly databaseUrl: string;
  readonly ctx: AppContext;
  readonly config: Config;
  /** The back-channel logout worker, which the runtime starts beside the server (src/runtime.ts). */
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
  /** `socket` unless given (see Transport). */
  readonly transport?: Transport;
}

/**
 * A listening socket on 127.0.0.1 at a port the OS picks. The server takes this very socket over once it
 * knows its BASE_URL (`server.listen(handle)`), so the port is never free between being chosen and being
 * served (closing a probe and listening again on its port raced with every other process picking one).
 */
async function bindFreePort(): Promise<Server> {
  const socket = createServer();
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.listen(0, '127.0.0.1', () => resolve());
  });
  return socket;
}

function portOf(socket: Server): number {
  const address = socket.address();
  if (typeof address !== 'object' || address === null) throw new Error('the test socket has no port');
  return address.port;
}

/** Serves `app` on the socket `bindFreePort` made (Node's `server.listen(handle)`). */
async function serveOn(app: FastifyInstance, socket: Server): Promise<void> {
  await app.ready();
  await new Promise<void>((resolve, reject) => {
    app.server.once('error', reject);
    app.server.listen(socket, () => {
      app.server.off('error', reject);
      resolve();
    });
  });
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
  const store = await openStore(provisional.database);
  const transport = options.transport ?? 'socket';
  const host = options.baseUrlHost ?? '127.0.0.1';
  let socket: Server | undefined;
  let app: FastifyInstance | undefined;
  try {
    await store.migrate();
    // Over a socket, BASE_URL names the port the OS gave; over inject nothing listens, so it has none.
    socket = transport === 'socket' ? await bindFreePort() : undefined;
    const baseUrl = socket ? `http://${host}:${portOf(socket)}` : `http://${host}`;
    const config = loadConfig({
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'silent',
      ...(socket ? { PORT: String(portOf(socket)) } : {}),
      BASE_URL: baseUrl,
      ...testDefaults(databaseUrl),
      ...options.env,
    });
    const ctx = createAppContext(config, store, options.clock ?? { now: () => Date.now() });
    app = await buildServer(ctx, { logger: false });
    if (socket) await serveOn(app, socket);
    else await app.ready();
    const logoutDeliveries = new LogoutDeliveryWorker(ctx);
    logoutDeliveries.start(app.log);
    return running(app, { baseUrl, transport, databaseUrl, ctx, config, logoutDeliveries }, async () => {
      await logoutDeliveries.stop();
      await store.close();
      await cleanup();
    });
  } catch (error) {
    if (app) await app.close();
    else socket?.close();
    await store.close();
    await cleanup();
    throw error;
  }
}

/** The TestServer of a started `app`; `release` frees its database once the app is closed. */
function running(
  app: FastifyInstance,
  server: Omit<TestServer, 'fetch' | 'close'>,
  release: () => Promise<void>,
): TestServer {
  const { baseUrl } = server;
  return {
    ...server,
    fetch:
      server.transport === 'inject'
        ? injectFetch(app, baseUrl)
        : (input, init) => fetch(onServer(input, baseUrl), init),
    async close() {
      await app.close();
      await release();
    },
  };
}
