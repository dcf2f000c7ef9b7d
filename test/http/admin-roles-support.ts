/**
 * What the role suites share (docs/interface.md#roles): the admin routes as the admin plugin registers them,
 * the people and tokens that call them, and a snapshot of what a refused call must leave unchanged.
 */
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../src/app-context.js';
import {
  adminAppViews,
  adminUserViewOf,
  findApp,
  listAuditEvents,
  listUsers,
} from '../../src/domain/admin-reads.js';
import { replaceRoles } from '../../src/domain/roles.js';
import { adminRoutes } from '../../src/http/routes/admin/index.js';
import type { RoleGrant } from '../../src/shared/roles.js';
import { PASSWORD, freshUin, signedInUser } from '../helpers/fixture.js';
import { Browser } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';

export const TAG_A = 'class-2026-3';
export const TAG_B = 'class-2026-4';
export const NEW_PASSWORD = 'a brand new long password 42';

/**
 * Every admin route (`METHOD /path`), collected from the admin plugin itself as it registers them: a route
 * added there shows up here, and the matrix refuses to run until it says what each caller gets.
 */
export async function registeredAdminRoutes(): Promise<string[]> {
  const probe = Fastify().withTypeProvider<TypeBoxTypeProvider>();
  const routes = new Set<string>();
  probe.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.add(`${method} ${route.url}`);
  });
  // Registering needs no service: the context is only read when a request arrives.
  await probe.register(adminRoutes, { ctx: {} as AppContext });
  await probe.ready();
  await probe.close();
  return [...routes].sort();
}

/** A signed-in user of `group` holding `roles`. */
export async function roleHolder(
  server: TestServer,
  roles: readonly RoleGrant[],
  group: 'user' | 'member' | 'admin' = 'user',
): Promise<{ uin: number; browser: Browser }> {
  const signedIn = await signedInUser(server, group);
  if (roles.length > 0) await replaceRoles(server.ctx, signedIn.uin, roles);
  return signedIn;
}

/** A user whose password step is done and whose second factor is still asked for. */
export async function pendingSecondFactor(server: TestServer): Promise<Browser> {
  const uin = freshUin();
  await server.ctx.users.create(uin, PASSWORD, 'admin');
  const now = Date.now();
  await server.ctx.store.secondFactors.putUnconfirmedTotp({
    uin,
    sealedSecret: 'sealed',
    confirmedAt: null,
    lastUsedStep: null,
    createdAt: now,
  });
  await server.ctx.store.secondFactors.acceptTotpStep(uin, 1, { now });
  const browser = new Browser(server.baseUrl);
  const login = await browser.login(uin, PASSWORD);
  if (login.status !== 200) throw new Error(`the pending sign-in failed: ${login.status}`);
  return browser;
}

/** A plain user carrying `groups`, to act on. */
export async function targetUser(server: TestServer, groups: readonly string[] = [TAG_A]): Promise<number> {
  const uin = freshUin();
  await server.ctx.users.create(uin, PASSWORD, 'user', { groups: [...groups] });
  return uin;
}

/**
 * What a refused call must leave as it was: the target user as the admin API shows them (lock, factors,
 * state, roles), the target app with its secret's hash, how many users and apps there are, and the events
 * recorded by or on the target (every change the admin API makes is recorded).
 */
export async function snapshot(server: TestServer, uin: number, clientId: string): Promise<string> {
  const ctx = server.ctx;
  const [user, app, users, apps, events] = await Promise.all([
    adminUserViewOf(ctx, uin),
    findApp(ctx, clientId),
    listUsers(ctx, { offset: 0, limit: 1 }),
    adminAppViews(ctx),
    listAuditEvents(ctx, { uin, limit: 500 }),
  ]);
  const stored = await ctx.store.users.find(uin);
  return JSON.stringify({
    user,
    passwordHash: stored?.passwordHash,
    mustChange: stored?.mustChangePassword,
    app,
    users: users.total,
    apps: apps.length,
    events: events.length,
  });
}

/** Calls the admin API with a service token: no cookie, no Origin. */
export function withToken(
  server: TestServer,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  return fetch(server.baseUrl + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

/**
 * A service token of an app allowed `scope` (docs/interface.md#service-accounts), obtained as a roster job
 * would: the app registered with client_credentials, then `grant_type=client_credentials` at the token
 * endpoint.
 */
export async function serviceToken(server: TestServer, admin: Browser, scope: string): Promise<string> {
  const created = await admin.call('POST', '/v1/admin/apps', {
    name: `Job ${scope}`,
    emoji: '🤖',
    redirect_uris: ['https://jobs.example.edu/callback'],
    client_credentials: true,
    allowed_scopes: [scope],
  });
  if (created.status !== 200) throw new Error(`the service app was refused: ${await created.text()}`);
  const { data } = (await created.json()) as { data: { app: { client_id: string }; client_secret: string } };
  const basic = Buffer.from(`${data.app.client_id}:${data.client_secret}`).toString('base64');
  const answer = await fetch(`${server.baseUrl}/v1/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
  });
  const token = (await answer.json()) as { access_token?: string };
  if (answer.status !== 200 || !token.access_token)
    throw new Error(`no service token: ${JSON.stringify(token)}`);
  return token.access_token;
}
