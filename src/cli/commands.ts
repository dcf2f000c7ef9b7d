import { setFlagsFromString } from 'node:v8';
import type { Config } from '../config/config.js';
import { isSingleEmoji } from '../domain/emoji.js';
import { passwordProblem } from '../domain/passwords.js';
import { casServicesProblem } from '../cas/services.js';
import { redirectUriListProblemMessage } from '../domain/redirect-uris.js';
import { allowedScopesProblem } from '../domain/service-accounts.js';
import { isValidUin } from '../domain/users.js';
import { startServer } from '../runtime.js';
import { openStore } from '../storage/open-store.js';
import { USER_GROUPS, isUserGroup } from '../shared/users.js';
import { MAX_APP_NAME_LENGTH, appNameProblem, normalizedAppName } from '../shared/apps.js';
import { keysList, keysRotate } from './keys.js';
import { readStdin } from './read-stdin.js';
import { type Output, UsageError, parseOptions } from './usage.js';
import { withContext } from './with-store.js';
import { parsedRoles } from './user-roles.js';
import { replaceRoles } from '../domain/roles.js';
import { appTarget } from '../domain/audit.js';

/**
 * How far V8 lets the old generation grow past what the last full collection kept, in percent (V8's
 * `--heap-growing-percent`). Left to itself, V8 lets a heap with a 4 GiB limit grow up to 4× its live size
 * before the next full collection: under the bench's exchange load the server's ~35 MB of live objects grew
 * to a 125 MB heap (`process.memoryUsage().heapTotal`, sampled each second), the peak RSS of those rows.
 * Held to 30%, the heap stays near live + 16 MB (40–48 MB in the same run). V8 reads the flag at every full
 * collection, so setting it here reaches every way of starting `serve`, unlike the young generation's size,
 * which is fixed when the process starts (docs/operations.md#requirements).
 */
const OLD_GENERATION_GROWTH_PERCENT = 30;

export async function serve(config: Config): Promise<void> {
  setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`);
  const server = await startServer(config).catch((error: unknown) => {
    if ((error as { code?: string }).code !== 'EADDRINUSE') throw error;
    throw new Error(
      `cannot listen on ${config.host}:${config.port}: another program uses that port (EADDRINUSE): stop it, or set PORT`,
    );
  });
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    server.app.log.info({ signal, timeout_s: config.shutdownTimeout }, 'shutting down');
    // The drain is bounded (runtime.ts); this catches what is not, such as closing a database that hangs.
    setTimeout(
      () => {
        server.app.log.error('shutdown did not finish; exiting anyway');
        process.exit(1);
      },
      (config.shutdownTimeout + 5) * 1000,
    ).unref();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // What the process runs with: the young generation's flag comes from every documented start path
  // (docs/operations.md#requirements); and where it listens, which PORT=0 leaves to the OS.
  server.app.log.info({ pid: process.pid, node_flags: process.execArgv, url: server.url }, 'serving');
  // Started during an outage, the instance prepares the database once it answers; a failure then that is
  // no outage (a wrong SECRET_KEY) ends the process as it would have at the start.
  server.started.catch((error: unknown) => {
    process.stderr.write(`campus-sso: ${(error as Error).message ?? String(error)}\n`);
    void server.close().finally(() => process.exit(1));
  });
}

export async function migrate(config: Config, out: Output): Promise<void> {
  const store = await openStore(config.database);
  try {
    const applied = await store.migrate();
    out(JSON.stringify({ applied }));
  } finally {
    await store.close();
  }
}

export async function userAdd(config: Config, args: string[], out: Output): Promise<void> {
  const values = parseOptions(args, {
    uin: { type: 'string' },
    group: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    // docs/interface.md#roles: `helpdesk:class-2026-3`, repeatable.
    role: { type: 'string', multiple: true },
  });
  const uin = Number(values.uin);
  if (values.uin === undefined || !/^\d+$/.test(values.uin) || !isValidUin(uin)) {
    throw new UsageError('--uin must be a positive integer up to 2^53-1');
  }
  const group = values.group;
  if (!isUserGroup(group)) throw new UsageError(`--group must be one of ${USER_GROUPS.join(', ')}`);
  const roles = parsedRoles(values.role);
  if (!values['password-stdin']) throw new UsageError('--password-stdin is required (pipe the password in)');
  const password = await readStdin();
  const problem = passwordProblem(password, uin);
  if (problem) throw new UsageError(problem);
  await withContext(config, async (ctx) => {
    const user = await ctx.users.create(uin, password, group);
    if (!user) throw new Error(`a user with uin ${uin} exists already`);
    if (roles.length > 0) await replaceRoles(ctx, uin, roles);
    // docs/interface.md#audit-trail: the operator's changes too, with no actor (the command line has no session).
    await ctx.audit.record({
      action: 'user_created',
      target: `user:${uin}`,
      detail: { user_group: group, ...(roles.length > 0 && { roles }), via: 'cli' },
    });
    out(
      JSON.stringify({
        uin: user.uin,
        user_group: user.userGroup,
        created_at: new Date(user.createdAt).toISOString(),
        // Only when given, so the answer without roles stays as it was.
        ...(roles.length > 0 && { roles }),
      }),
    );
  });
}

export async function appAdd(config: Config, args: string[], out: Output): Promise<void> {
  const values = parseOptions(args, {
    name: { type: 'string' },
    emoji: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    'cas-service': { type: 'string', multiple: true },
    // docs/interface.md#device-authorization-grant: the app may use the device grant (then no redirect URI is needed).
    device: { type: 'boolean' },
    // docs/interface.md#service-accounts-client-credentials: a service account (then no redirect URI is needed).
    'client-credentials': { type: 'boolean' },
    scope: { type: 'string', multiple: true },
  });
  // The app-name rule (src/shared/apps.ts), as the API and the page count it: in code points.
  if (appNameProblem(values.name ?? '') !== undefined) {
    throw new UsageError(`--name must be 1 to ${MAX_APP_NAME_LENGTH} characters`);
  }
  const name = normalizedAppName(values.name ?? '');
  if (!values.emoji || !isSingleEmoji(values.emoji))
    throw new UsageError('--emoji must be exactly one emoji');
  const redirectUris = values['redirect-uri'] ?? [];
  // docs/interface.md#cas-protocol: a CAS-only app needs no redirect URI.
  const casServices = values['cas-service'] ?? [];
  const casProblem = casServicesProblem(casServices);
  if (casProblem) throw new UsageError(`--cas-service: ${casProblem}`);
  // docs/interface.md#device-authorization-grant: a device-only app needs none either.
  const deviceGrant = values.device === true;
  const clientCredentials = values['client-credentials'] === true;
  const allowedScopes = values.scope ?? [];
  const scopeProblem = allowedScopesProblem(allowedScopes);
  if (scopeProblem) throw new UsageError(`--scope: ${scopeProblem}`);
  if (allowedScopes.length > 0 && !clientCredentials) {
    throw new UsageError(
      '--scope names what --client-credentials tokens may carry: add --client-credentials',
    );
  }
  const problem =
    casServices.length > 0 && redirectUris.length === 0
      ? undefined
      : redirectUriListProblemMessage(redirectUris, deviceGrant || clientCredentials);
  if (problem) throw new UsageError(`--redirect-uri: ${problem}`);
  await withContext(config, async (ctx) => {
    const { app, clientSecret } = await ctx.apps.create({
      name,
      emoji: values.emoji as string,
      redirectUris,
      casServices,
      deviceGrant,
      clientCredentials,
      allowedScopes,
    });
    await ctx.audit.record({
      action: 'app_created',
      target: appTarget(app.clientId),
      detail: { name: app.name, via: 'cli' },
    });
    out(JSON.stringify({ client_id: app.clientId, client_secret: clientSecret }));
  });
}

/** `app list`: one JSON line per app, newest first (no secret: only its hash is stored). */
export async function appList(config: Config, args: string[], out: Output): Promise<void> {
  if (args.length > 0) throw new UsageError(`app list takes no arguments, got "${args.join(' ')}"`);
  await withContext(config, async (ctx) => {
    for (const app of await ctx.store.apps.list()) {
      out(
        JSON.stringify({
          client_id: app.clientId,
          name: app.name,
          emoji: app.emoji,
          disabled: app.disabled,
          redirect_uris: app.redirectUris,
          cas_services: app.casServices ?? [],
          device_grant: app.deviceGrant ?? false,
          client_credentials: app.clientCredentials ?? false,
          allowed_scopes: app.allowedScopes ?? [],
        }),
      );
    }
  });
}

/** `keys rotate` / `keys list`: the id_token signing keys. */
export async function keys(
  config: Config,
  sub: string | undefined,
  args: string[],
  out: Output,
): Promise<void> {
  if (sub !== 'rotate' && sub !== 'list') throw new UsageError(`unknown command "keys ${sub ?? ''}"`.trim());
  if (args.length > 0) throw new UsageError(`keys ${sub} takes no arguments, got "${args.join(' ')}"`);
  await withContext(config, (ctx) => (sub === 'rotate' ? keysRotate(ctx, out) : keysList(ctx, out)));
}
