import type { FastifyInstance } from 'fastify';
import { type AppContext, createAppContext } from './app-context.js';
import { systemClock } from './clock.js';
import type { Config } from './config/config.js';
import { randomToken } from './domain/crypto.js';
import { scheduleDirectorySync } from './domain/directory-sync.js';
import { ConnectionDrain } from './http/connection-drain.js';
import { passwordProblem } from './domain/passwords.js';
import { buildServer } from './http/server.js';
import { StartupGate } from './http/startup-gate.js';
import { assertDatabaseIntact } from './ops/sqlite-maintenance.js';
import { LogoutDeliveryWorker } from './oauth/logout-delivery.js';
import { prepareSigningKeys } from './oauth/signing-keys.js';
import { isDatabaseUnavailable } from './storage/database-errors.js';
import { openStore } from './storage/open-store.js';

const PURGE_INTERVAL_MS = 10 * 60_000;
const FIRST_ADMIN_UIN = 10000;

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly ctx: AppContext;
  /**
   * Sends back-channel and CAS logouts (docs/interface.md#sessions-and-sign-out): every instance runs one
   * while it serves, from when the database has answered.
   */
  readonly logoutDeliveries: LogoutDeliveryWorker;
  readonly url: string;
  /**
   * Resolves once the instance serves: at once, or when the database it started without has answered and
   * been migrated; rejects when that preparation fails for another reason than an outage.
   */
  readonly started: Promise<void>;
  /**
   * Stops serving: no new connections, answers in flight and requests arriving on open connections answered
   * with `Connection: close` (503 once Fastify stops accepting work), connections quiet for a second closed
   * (./http/connection-drain.ts); after `config.shutdownTimeout` seconds the connections still open are closed.
   */
  close(): Promise<void>;
}

/**
 * docs/interface.md#command-line: with no admin yet, create one with a generated one-time password and print it once — never a
 * fixed default. Several instances starting together race harmlessly: only one insert succeeds.
 */
async function ensureFirstAdmin(ctx: AppContext, app: FastifyInstance): Promise<void> {
  // An expired admin is no admin (docs/interface.md#admin-api): with none left, the next start makes one.
  if ((await ctx.store.users.countAdmins(ctx.clock.now())) > 0) return;
  let uin = FIRST_ADMIN_UIN;
  while (await ctx.store.users.find(uin)) uin++;
  // 20 random characters pass the password policy but for a one-in-billions draw: draw again then.
  let password = randomToken(15);
  while (passwordProblem(password, uin) !== undefined) password = randomToken(15);
  // The password is in the log: it must be changed at the first sign-in (docs/security.md).
  const created = await ctx.users.create(uin, password, 'admin', { mustChangePassword: true });
  if (!created) return;
  app.log.warn(
    { uin, password, sign_in: `${ctx.config.baseUrl}/#/account` },
    'first start: created admin; sign in with this one-time password, which must then be changed',
  );
}

/** The first wait before trying the database again at start-up; it doubles after every failure … */
const START_RETRY_FIRST_MS = 250;
/** … up to this. */
const START_RETRY_MAX_MS = 5_000;

/** Migrates the database, opens the signing keys and makes sure an admin exists: what serving needs. */
async function prepareDatabase(ctx: AppContext, app: FastifyInstance): Promise<void> {
  await ctx.store.migrate();
  // A wrong SECRET_KEY stops the start here, with its message, instead of failing the first sign-in.
  await prepareSigningKeys(ctx);
  await ensureFirstAdmin(ctx, app);
}

/**
 * Prepares a database that was unavailable at start once it answers (docs/operations.md#starting-during-an-outage):
 * tries again with backoff; `stop` ends the wait at once.
 */
class DatabaseRetry {
  private stopping = false;
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly app: FastifyInstance,
  ) {}

  get stopped(): boolean {
    return this.stopping;
  }

  stop(): void {
    this.stopping = true;
    this.wakeUp?.();
  }

  /** Tries again until the database answers; logs the outage once, each later failure only at debug level. */
  async waitFor(first: unknown): Promise<void> {
    const { app } = this;
    app.log.error(
      { reason: String((first as Error)?.message ?? first), retry_max_s: START_RETRY_MAX_MS / 1000 },
      'database unavailable at start; serving /healthz and retrying with backoff until it answers',
    );
    for (let attempt = 1, delay = START_RETRY_FIRST_MS; ; attempt++) {
      await this.sleep(delay);
      if (this.stopping) return;
      try {
        await prepareDatabase(this.ctx, app);
      } catch (error) {
        if (this.stopping) return;
        if (!isDatabaseUnavailable(error)) throw error;
        app.log.debug({ attempt, err: error }, 'database still unavailable at start');
        delay = Math.min(delay * 2, START_RETRY_MAX_MS);
        continue;
      }
      app.log.info({ attempts: attempt + 1 }, 'database answered: migrated, now serving');
      return;
    }
  }

  /** Waits `ms`, or less when stopped meanwhile. */
  private async sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** Purges the expired rows now and every PURGE_INTERVAL_MS until stopped; a failed purge is logged. */
function schedulePurges(ctx: AppContext, app: FastifyInstance): { stop(): void } {
  const purge = async (): Promise<void> => {
    try {
      const report = await ctx.store.purgeExpired(systemClock.now(), ctx.config.auditRetentionDays);
      app.log.debug({ purged: report }, 'expired rows purged');
    } catch (error) {
      app.log.warn({ err: error }, 'purging expired rows failed');
    }
  };
  const timer = setInterval(() => void purge(), PURGE_INTERVAL_MS);
  timer.unref();
  void purge();
  return { stop: () => clearInterval(timer) };
}

/**
 * Closes the server, draining its connections (./http/connection-drain.ts); after `timeoutSeconds` the
 * connections still open are closed.
 */
async function closeDraining(
  app: FastifyInstance,
  drain: ConnectionDrain,
  timeoutSeconds: number,
): Promise<void> {
  const server = app.server;
  drain.begin();
  const deadline = setTimeout(() => {
    app.log.warn({ after_s: timeoutSeconds }, 'shutdown: closing connections still open');
    drain.end();
    server.closeAllConnections();
  }, timeoutSeconds * 1000);
  try {
    await app.close();
  } finally {
    drain.end();
    clearTimeout(deadline);
  }
}

/**
 * Opens the database, migrates it, and starts serving. When the database is unavailable
 * (docs/operations.md#starting-during-an-outage), the instance listens anyway, shut (`/healthz` 200, `/readyz`
 * and everything else 503), tries again with backoff, and serves once the database answers; `started` then
 * resolves. Any other failure (a wrong SECRET_KEY, a corrupt migration history) ends the start.
 */
export async function startServer(
  config: Config,
  options: { logger?: boolean } = {},
): Promise<RunningServer> {
  if (config.database.kind === 'sqlite') assertDatabaseIntact(config.database.file);
  const store = await openStore(config.database);
  const ctx = createAppContext(config, store, systemClock);
  const gate = new StartupGate();
  const logoutDeliveries = new LogoutDeliveryWorker(ctx);
  const app = await buildServer(ctx, { ...options, startupGate: gate });
  let outage: unknown;
  try {
    await prepareDatabase(ctx, app);
  } catch (error) {
    if (!isDatabaseUnavailable(error)) {
      await app.close();
      await store.close();
      throw error;
    }
    outage = error;
  }
  const retry = new DatabaseRetry(ctx, app);
  let purges: { stop(): void } | undefined;
  const serving = (): void => {
    gate.open();
    logoutDeliveries.start(app.log);
    purges = schedulePurges(ctx, app);
  };

  // docs/operations.md#what-the-sync-does: LDAP_SYNC_INTERVAL, one instance at a time (Store.exclusive).
  const directory = ctx.passwords.directory;
  const interval = config.ldap?.syncIntervalSeconds;
  const directorySync =
    directory && interval !== undefined
      ? scheduleDirectorySync({ ...ctx, directory }, interval * 1000, app.log)
      : undefined;

  const drain = new ConnectionDrain(app.server);
  let url: string;
  try {
    url = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // The port is taken (EADDRINUSE) or not ours to take: release what was opened, so the command ends.
    await directorySync?.stop();
    await app.close();
    await store.close();
    throw error;
  }
  let started: Promise<void>;
  if (outage === undefined) {
    serving();
    started = Promise.resolve();
  } else {
    started = retry.waitFor(outage).then(() => {
      if (!retry.stopped) serving();
    });
  }
  return {
    app,
    ctx,
    logoutDeliveries,
    url,
    started,
    async close() {
      retry.stop();
      purges?.stop();
      await directorySync?.stop();
      await closeDraining(app, drain, config.shutdownTimeout);
      await logoutDeliveries.stop();
      await store.close();
    },
  };
}
