import type { FastifyInstance } from 'fastify';
import { type AppContext, createAppContext } from './app-context.js';
import { systemClock } from './clock.js';
import type { Config } from './config/config.js';
import { randomToken } from './domain/crypto.js';
import { passwordProblem } from './domain/passwords.js';
import { buildServer } from './http/server.js';
import { assertDatabaseIntact } from './ops/sqlite-maintenance.js';
import { prepareSigningKeys } from './oauth/signing-keys.js';
import { openStore } from './storage/open-store.js';

const PURGE_INTERVAL_MS = 10 * 60_000;
const FIRST_ADMIN_UIN = 10000;

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly ctx: AppContext;
  readonly url: string;
  /**
   * Stops serving: no new connections, idle keep-alive connections closed at once, answers in flight sent
   * with `Connection: close`; after `config.shutdownTimeout` seconds the connections still open are closed.
   */
  close(): Promise<void>;
}

/** How often, while draining, connections that have just turned idle are closed. */
const DRAIN_REAP_INTERVAL_MS = 100;

/**
 * docs/interface.md#command-line: with no admin yet, create one with a generated one-time password and print it once — never a
 * fixed default. Several instances starting together race harmlessly: only one insert succeeds.
 */
async function ensureFirstAdmin(ctx: AppContext, app: FastifyInstance): Promise<void> {
  if ((await ctx.store.users.countAdmins()) > 0) return;
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

/** Opens the database, migrates it, and starts serving. */
export async function startServer(
  config: Config,
  options: { logger?: boolean } = {},
): Promise<RunningServer> {
  if (config.database.kind === 'sqlite') assertDatabaseIntact(config.database.file);
  const store = openStore(config.database);
  await store.migrate();
  const ctx = createAppContext(config, store, systemClock);
  // A wrong SECRET_KEY stops the start here, with its message, instead of failing the first sign-in.
  try {
    await prepareSigningKeys(ctx);
  } catch (error) {
    await store.close();
    throw error;
  }
  const app = await buildServer(ctx, options);
  await ensureFirstAdmin(ctx, app);

  const purge = async (): Promise<void> => {
    try {
      const report = await store.purgeExpired(systemClock.now(), config.auditRetentionDays);
      app.log.debug({ purged: report }, 'expired rows purged');
    } catch (error) {
      app.log.warn({ err: error }, 'purging expired rows failed');
    }
  };
  const timer = setInterval(() => void purge(), PURGE_INTERVAL_MS);
  timer.unref();
  void purge();

  const url = await app.listen({ port: config.port, host: config.host });
  return {
    app,
    ctx,
    url,
    async close() {
      clearInterval(timer);
      const server = app.server;
      // An answer sent just before the drain began left its connection idle and keep-alive; close those too.
      const reaper = setInterval(() => server.closeIdleConnections(), DRAIN_REAP_INTERVAL_MS);
      const deadline = setTimeout(() => {
        app.log.warn({ after_s: config.shutdownTimeout }, 'shutdown: closing connections still open');
        server.closeAllConnections();
      }, config.shutdownTimeout * 1000);
      try {
        await app.close();
      } finally {
        clearInterval(reaper);
        clearTimeout(deadline);
      }
      await store.close();
    },
  };
}
