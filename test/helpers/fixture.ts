/**
 * The one fixture of the suites that run on both databases (fastify/demo's `build(t)` is the model):
 *
 *     const SUITE: DatabaseSuiteOptions = { transport: 'inject', client: true, user: 'member' };
 *     describeOnDatabases('POST /v1/oauth2/token', SUITE, ({ server, client, user }) => {
 *       it('…', async () => { … await server.fetch('/v1/oauth2/token', { method: 'POST', … }) … });
 *     });
 *
 * declares the suite once per database (`POST /v1/oauth2/token on sqlite`, `… on postgres`), starts the real
 * server (`startTestServer`) before its tests and closes it after them, reached with `server.fetch` over
 * `transport: 'inject'` (no port) or a socket (see ./server.ts), and, when the options ask, registers
 * a client and signs a user in through `POST /v1/account/login`. The PostgreSQL reachability rule of
 * ./databases.ts always applies: unreachable, a local run skips the PostgreSQL half with one skipped test that
 * says why; under CI=true the half fails instead.
 *
 * The fixture's parts are handles made when the suite is declared and filled when its server starts, so a
 * suite can destructure them in its parameter list and use them in its hooks and tests; reading one of their
 * fields while tests are being declared (outside a hook or a test) throws.
 *
 * A suite that moves time itself asks for `manualClock`: each database's server then runs on its own
 * ManualClock, handed to the suite as `clock`. Suites that start no server (the Store suite opens fresh
 * databases itself; a CLI suite starts `campus-sso serve` processes) use `describeEachDatabase`, the
 * reachability rule alone.
 */
import { hash } from '@node-rs/argon2';
import { afterAll, beforeAll, describe } from 'vitest';
import type { Clock } from '../../src/clock.js';
import type { NewApp } from '../../src/domain/apps.js';
import type { AppRecord, UserGroup } from '../../src/storage/store.js';
import { assertReachable, skipUnreachable } from './databases.js';
import { Browser } from './http.js';
import { DATABASES, type DatabaseKind, type TestServer, type Transport, startTestServer } from './server.js';

export const PASSWORD = 'correct horse battery staple';
export const REDIRECT_URI = 'https://app.example.edu/callback';

/** Above 2^31 on purpose: QQ numbers are (docs/interface.md#resources), and PostgreSQL must hand them back as integers. */
let nextUin = 3_000_000_000;
/** A fresh uin per call. */
export function freshUin(): number {
  nextUin += 1;
  return nextUin;
}

/** A registered app and the secret it was given. */
export interface Client {
  readonly app: AppRecord;
  readonly clientId: string;
  readonly clientSecret: string;
}

/** Registers the Library app (redirect URI REDIRECT_URI) with any fields of `app` instead. */
export async function registerClient(server: TestServer, app: Partial<NewApp> = {}): Promise<Client> {
  const created = await server.ctx.apps.create({
    name: 'Library',
    emoji: '📚',
    redirectUris: [REDIRECT_URI],
    ...app,
  });
  return { app: created.app, clientId: created.app.clientId, clientSecret: created.clientSecret };
}

/** A clock the test moves by hand (`manualClock` gives each database's server one). */
export interface ManualClock extends Clock {
  set(epochMs: number): void;
  advance(milliseconds: number): void;
}

/** A ManualClock standing at `epochMs` until it is moved. */
export function manualClock(epochMs: number): ManualClock {
  let time = epochMs;
  return {
    now: () => time,
    set: (to) => {
      time = to;
    },
    advance: (milliseconds) => {
      time += milliseconds;
    },
  };
}

/** Creates a user and signs them in through `POST /v1/account/login`; `browser` holds the session cookie. */
export async function signedInUser(
  server: TestServer,
  group: UserGroup = 'member',
  uin = freshUin(),
  password = PASSWORD,
  browser = new Browser(server),
): Promise<{ uin: number; browser: Browser }> {
  if ((await server.ctx.users.create(uin, password, group)) === undefined) {
    throw new Error(`the test user ${uin} exists already`);
  }
  const response = await browser.login(uin, password);
  if (response.status !== 200) throw new Error(`the test user ${uin} could not sign in: ${response.status}`);
  return { uin, browser };
}

/**
 * Stores a user whose password hash the previous system made (argon2id `m=65536,t=1,p=2`), kept as it was by
 * the import (import-campux), who has not signed in since (which would re-hash it).
 */
export async function insertImportedUser(
  server: TestServer,
  uin: number,
  password: string,
  at: number,
): Promise<void> {
  const inserted = await server.ctx.store.users.insert({
    uin,
    passwordHash: await hash(password, { memoryCost: 65_536, timeCost: 1, parallelism: 2 }),
    userGroup: 'user',
    createdAt: at,
    disabled: false,
    mustChangePassword: false,
  });
  if (!inserted) throw new Error(`the test user ${uin} exists already`);
}

export interface DatabaseSuiteOptions {
  /** The databases to run on; both unless a suite is about one of them. */
  readonly databases?: readonly DatabaseKind[];
  /**
   * How the suite reaches its server (./server.ts): `inject`, in-process, unless the suite needs a socket (a
   * browser, a third-party client, a raw socket); `socket` when not given, for the suites written before.
   */
  readonly transport?: Transport;
  /** Configuration the server starts with (read as environment variables, e.g. `BASE_URL`). */
  readonly env?: Readonly<Record<string, string>>;
  /** The clock the server reads (shared by both databases' servers); the system clock unless given. */
  readonly clock?: Clock;
  /**
   * A ManualClock per database instead, standing at this epoch-millisecond time (or at the time the suite is
   * declared, for `true`) until the suite moves it; the suite gets it as `clock`.
   */
  readonly manualClock?: true | number;
  /** Register an app before the tests: `true` for the Library app of registerClient, or what differs from it. */
  readonly client?: true | Partial<NewApp>;
  /** Create a user of this group and sign them in before the tests (uin fresh, password PASSWORD unless given). */
  readonly user?:
    UserGroup | { readonly group: UserGroup; readonly uin?: number; readonly password?: string };
}

/** The user the suite asked for, signed in; `browser` holds their session cookie. */
export interface SignedInUser {
  readonly uin: number;
  readonly password: string;
  readonly group: UserGroup;
  readonly browser: Browser;
}

export interface DatabaseFixture {
  readonly database: DatabaseKind;
  /** The running server (its fields are readable in hooks and tests). */
  readonly server: TestServer;
  /** The app registered when the suite asked for `client`. */
  readonly client: Client;
  /** The signed-in user, when the suite asked for `user`. */
  readonly user: SignedInUser;
  /** The server's clock, when the suite asked for `manualClock`. */
  readonly clock: ManualClock;
}

/** Before the suite's server has started, or for a part the suite did not ask for, says so instead of undefined. */
function filled<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`describeOnDatabases: ${what}`);
  return value;
}

function noUser(suite: string): never {
  throw new Error(`describeOnDatabases: "${suite}" asked for no user: pass { user: 'member' }`);
}

/** The suite's ManualClock, or one that says how to ask for it. */
function suiteClock(suite: string, options: DatabaseSuiteOptions): ManualClock {
  if (options.manualClock !== undefined && options.clock !== undefined) {
    throw new Error(`describeOnDatabases: "${suite}" asks for both clock and manualClock`);
  }
  if (options.manualClock !== undefined) {
    return manualClock(options.manualClock === true ? Date.now() : options.manualClock);
  }
  const missing = (): never => {
    throw new Error(`describeOnDatabases: "${suite}" asked for no clock: pass { manualClock: true }`);
  };
  return { now: missing, set: missing, advance: missing };
}

class ServerHandle implements TestServer {
  running: TestServer | undefined;

  constructor(private readonly suite: string) {}

  private get current(): TestServer {
    return filled(
      this.running,
      `the server of "${this.suite}" is not running; use it inside a hook or a test`,
    );
  }
  get baseUrl(): string {
    return this.current.baseUrl;
  }
  get databaseUrl(): string {
    return this.current.databaseUrl;
  }
  get ctx(): TestServer['ctx'] {
    return this.current.ctx;
  }
  get config(): TestServer['config'] {
    return this.current.config;
  }
  get logoutDeliveries(): TestServer['logoutDeliveries'] {
    return this.current.logoutDeliveries;
  }
  get transport(): TestServer['transport'] {
    return this.current.transport;
  }
  /** The running server's fetch (read at each call, so it can be handed out before the server starts). */
  readonly fetch: TestServer['fetch'] = (input, init) => this.current.fetch(input, init);
  async close(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    await running?.close();
  }
}

class ClientHandle implements Client {
  registered: Client | undefined;

  constructor(
    private readonly suite: string,
    private readonly asked: boolean,
  ) {}

  private get current(): Client {
    const why = this.asked
      ? 'is not registered yet; use it inside a hook or a test'
      : 'was not asked for: pass { client: true }';
    return filled(this.registered, `the client of "${this.suite}" ${why}`);
  }
  get app(): AppRecord {
    return this.current.app;
  }
  get clientId(): string {
    return this.current.clientId;
  }
  get clientSecret(): string {
    return this.current.clientSecret;
  }
}

function userOptions(
  option: DatabaseSuiteOptions['user'],
): { group: UserGroup; uin?: number; password?: string } | undefined {
  return typeof option === 'string' ? { group: option } : option;
}

function declareSuite(
  name: string,
  database: DatabaseKind,
  options: DatabaseSuiteOptions,
  body: (fixture: DatabaseFixture) => void,
): void {
  const suite = `${name} on ${database}`;
  const server = new ServerHandle(suite);
  const client = new ClientHandle(suite, options.client !== undefined);
  const asked = userOptions(options.user);
  const user: SignedInUser = asked
    ? {
        uin: asked.uin ?? freshUin(),
        password: asked.password ?? PASSWORD,
        group: asked.group,
        browser: new Browser(server),
      }
    : {
        get uin(): never {
          return noUser(suite);
        },
        get password(): never {
          return noUser(suite);
        },
        get group(): never {
          return noUser(suite);
        },
        get browser(): never {
          return noUser(suite);
        },
      };
  const clock = suiteClock(suite, options);
  const serverClock = options.manualClock !== undefined ? clock : options.clock;

  beforeAll(async () => {
    assertReachable(database);
    server.running = await startTestServer({
      database,
      ...(options.transport ? { transport: options.transport } : {}),
      ...(options.env ? { env: options.env } : {}),
      ...(serverClock ? { clock: serverClock } : {}),
    });
    if (options.client !== undefined) {
      client.registered = await registerClient(server, options.client === true ? {} : options.client);
    }
    if (asked) await signedInUser(server, user.group, user.uin, user.password, user.browser);
  });
  afterAll(async () => {
    await server.close();
  });

  body({ database, server, client, user, clock });
}

/**
 * Declares `name` once per database with a running server (see the top of this file). The PostgreSQL half is
 * skipped locally, and fails under CI, when PostgreSQL is unreachable.
 */
export function describeOnDatabases(name: string, body: (fixture: DatabaseFixture) => void): void;
export function describeOnDatabases(
  name: string,
  options: DatabaseSuiteOptions,
  body: (fixture: DatabaseFixture) => void,
): void;
export function describeOnDatabases(
  name: string,
  optionsOrBody: DatabaseSuiteOptions | ((fixture: DatabaseFixture) => void),
  maybeBody?: (fixture: DatabaseFixture) => void,
): void {
  const options = typeof optionsOrBody === 'function' ? {} : optionsOrBody;
  const body = typeof optionsOrBody === 'function' ? optionsOrBody : maybeBody;
  if (body === undefined) throw new Error('describeOnDatabases: the suite has no body');
  describeEachDatabase(name, (database) => declareSuite(name, database, options, body), options.databases);
}

/**
 * The reachability rule alone, for suites on both databases that start no server (the Store suite opens
 * fresh databases itself): declares `<name> on <database>` for each.
 */
export function describeEachDatabase(
  name: string,
  body: (database: DatabaseKind) => void,
  databases: readonly DatabaseKind[] = DATABASES,
): void {
  for (const database of databases) {
    describe(`${name} on ${database}`, () => {
      if (skipUnreachable(database)) return;
      body(database);
    });
  }
}
