/**
 * The admin JSON API (docs/interface.md#admin-api): the admin gate, the apps panel and the users panel.
 * The CSV import has its own file, admin-import.test.ts.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { UserGroup } from '../../src/storage/store.js';
import { Browser, json } from '../helpers/http.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';

interface Envelope<T = Record<string, unknown>> {
  code: number;
  msg: string;
  data: T;
}

interface AppJson {
  client_id: string;
  name: string;
  emoji: string;
  redirect_uris: string[];
  created_at: string;
  disabled: boolean;
  allow_refresh_tokens: boolean;
  post_logout_redirect_uris: string[];
  backchannel_logout_uri: string | null;
  backchannel_logout_last_attempt: { at: string; result: string } | null;
  backchannel_logout_pending: number;
  listed: boolean;
  homepage_url: string | null;
}

interface UserJson {
  uin: number;
  user_group: UserGroup;
  created_at: string;
  disabled: boolean;
}

const PASSWORD = 'correct horse battery staple';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function signIn(server: TestServer, uin: number, password = PASSWORD): Promise<Browser> {
  const browser = new Browser(server.baseUrl);
  const response = await browser.login(uin, password);
  expect(response.status).toBe(200);
  return browser;
}

async function signInAs(server: TestServer, uin: number, group: UserGroup): Promise<Browser> {
  await server.ctx.users.create(uin, PASSWORD, group);
  return signIn(server, uin);
}

async function envelope<T = Record<string, unknown>>(response: Response): Promise<Envelope<T>> {
  return json<Envelope<T>>(response);
}

/** Expects an error envelope with this status and code; answers its message. */
/**
 * Expects an error envelope with this status and code; `data` is `{}`, or for a refused password the
 * policy's reason (docs/interface.md#the-envelope). Answers the message.
 */
async function expectError(response: Response, status: number, code: number): Promise<string> {
  const body = await envelope(response);
  expect({ status: response.status, code: body.code }).toEqual({ status, code });
  const data = body.data as Record<string, unknown>;
  if ('reason' in data) expect(data).toEqual({ reason: expect.stringMatching(/^too_(short|long)$/) });
  else expect(data).toEqual({});
  expect(body.msg).not.toBe('');
  return body.msg;
}

const NEW_APP = { name: 'Library', emoji: '📚', redirect_uris: ['https://library.example.edu/callback'] };

describeOnDatabases('admin API', { user: { group: 'admin', uin: 10_001 } }, (fixture) => {
  const { server } = fixture;
  const admin = fixture.user.browser;
  let nextUin = 20_000;
  const freshUin = (): number => nextUin++;

  async function createApp(
    body: Record<string, unknown> = NEW_APP,
  ): Promise<{ app: AppJson; client_secret: string }> {
    const response = await admin.call('POST', '/v1/admin/apps', body);
    expect(response.status).toBe(200);
    return (await envelope<{ app: AppJson; client_secret: string }>(response)).data;
  }

  describe('the admin gate', () => {
    const routes: ReadonlyArray<readonly [string, string, unknown?]> = [
      ['GET', '/v1/admin/apps'],
      ['POST', '/v1/admin/apps', NEW_APP],
      ['GET', '/v1/admin/apps/AAAAAAAAAAAAAAAA'],
      ['PATCH', '/v1/admin/apps/AAAAAAAAAAAAAAAA', { disabled: true }],
      ['POST', '/v1/admin/apps/AAAAAAAAAAAAAAAA/rotate-secret'],
      ['DELETE', '/v1/admin/apps/AAAAAAAAAAAAAAAA'],
      ['GET', '/v1/admin/users'],
      ['POST', '/v1/admin/users', { uin: 55, password: PASSWORD, user_group: 'admin' }],
      ['PATCH', '/v1/admin/users/10001', { disabled: true }],
      ['POST', '/v1/admin/users/import', { rows: [] }],
    ];

    it('answers 401 code -1 to every admin call when not signed in', async () => {
      const anonymous = new Browser(server.baseUrl);
      for (const [method, path, body] of routes) {
        await expectError(await anonymous.call(method, path, body), 401, -1);
      }
    });

    it('answers 401 code -1 before looking at the body, so a malformed body reveals nothing', async () => {
      const anonymous = new Browser(server.baseUrl);
      await expectError(await anonymous.call('POST', '/v1/admin/apps', { nonsense: true }), 401, -1);
    });

    it('answers 401 code -1 to an unknown or stale session cookie', async () => {
      const stale = new Browser(server.baseUrl);
      const response = await stale.call('GET', '/v1/admin/apps', undefined, {
        cookie: 'campus_sso_session=forged',
      });
      await expectError(response, 401, -1);
    });

    it.each<UserGroup>(['member', 'user'])(
      'answers 403 code 4 to a signed-in %s who is not an admin',
      async (group) => {
        const someone = await signInAs(server, freshUin(), group);
        for (const [method, path, body] of routes) {
          await expectError(await someone.call(method, path, body), 403, 4);
        }
      },
    );

    it('stops answering a demoted admin at their next call', async () => {
      const uin = freshUin();
      const other = await signInAs(server, uin, 'admin');
      expect((await other.call('GET', '/v1/admin/apps')).status).toBe(200);
      await server.ctx.store.users.update(uin, { userGroup: 'member' });
      await expectError(await other.call('GET', '/v1/admin/apps'), 403, 4);
    });

    it('leaves the public routes alone', async () => {
      const anonymous = new Browser(server.baseUrl);
      expect((await anonymous.call('GET', '/healthz')).status).toBe(200);
      const member = await signInAs(server, freshUin(), 'member');
      expect((await member.call('GET', '/v1/account/me')).status).toBe(200);
    });

    it('refuses a cross-origin state-changing call with 403 code 4', async () => {
      const response = await admin.call('POST', '/v1/admin/apps', NEW_APP, {
        origin: 'https://evil.example',
      });
      await expectError(response, 403, 4);
    });

    it('refuses a state-changing call whose body is not JSON with 403 code 4', async () => {
      const response = await admin.call('POST', '/v1/admin/apps', 'name=x', {
        'content-type': 'application/x-www-form-urlencoded',
      });
      await expectError(response, 403, 4);
    });
  });

  describe('POST /v1/admin/apps', () => {
    it('registers an app and shows its secret this once', async () => {
      const { app, client_secret } = await createApp();
      expect(app).toEqual({
        client_id: expect.stringMatching(/^[A-Za-z0-9]{16}$/),
        name: 'Library',
        emoji: '📚',
        redirect_uris: ['https://library.example.edu/callback'],
        created_at: expect.stringMatching(ISO_MS),
        disabled: false,
        allow_refresh_tokens: true,
        allowed_groups: [],
        post_logout_redirect_uris: [],
        backchannel_logout_uri: null,
        backchannel_logout_last_attempt: null,
        backchannel_logout_pending: 0,
        listed: false,
        homepage_url: null,
        cas_services: [],
        device_grant: false,
      });
      expect(client_secret.length).toBeGreaterThanOrEqual(43);
      expect(await server.ctx.apps.authenticate(app.client_id, client_secret)).toBeDefined();

      const list = await (await admin.call('GET', '/v1/admin/apps')).text();
      const one = await (await admin.call('GET', `/v1/admin/apps/${app.client_id}`)).text();
      expect(list).not.toContain(client_secret);
      expect(one).not.toContain(client_secret);
      expect(one).not.toMatch(/secret/i);
    });

    it('answers with Cache-Control: no-store, since the answer carries the secret', async () => {
      const response = await admin.call('POST', '/v1/admin/apps', NEW_APP);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
    });

    it('trims the name', async () => {
      const { app } = await createApp({ ...NEW_APP, name: '  Moodle  ' });
      expect(app.name).toBe('Moodle');
    });

    it('accepts a name of 64 characters and refuses 65', async () => {
      expect((await createApp({ ...NEW_APP, name: '名'.repeat(64) })).app.name).toBe('名'.repeat(64));
      await expectError(
        await admin.call('POST', '/v1/admin/apps', { ...NEW_APP, name: 'x'.repeat(65) }),
        400,
        1,
      );
    });

    it('refuses an empty or blank name', async () => {
      for (const name of ['', '   ']) {
        const msg = await expectError(
          await admin.call('POST', '/v1/admin/apps', { ...NEW_APP, name }),
          400,
          1,
        );
        expect(msg).toContain('name');
      }
    });

    it('accepts exactly one emoji, including multi-code-point ones', async () => {
      for (const emoji of ['🧑‍🔬', '🇨🇳', '👍🏽', '❤️']) {
        expect((await createApp({ ...NEW_APP, emoji })).app.emoji).toBe(emoji);
      }
    });

    it('refuses an emoji field that is not exactly one emoji', async () => {
      for (const emoji of ['', 'A', '📚📚', '📚 ', ':)']) {
        const msg = await expectError(
          await admin.call('POST', '/v1/admin/apps', { ...NEW_APP, emoji }),
          400,
          1,
        );
        expect(msg).toContain('emoji');
      }
    });

    it('requires 1 to 10 redirect URIs', async () => {
      await expectError(
        await admin.call('POST', '/v1/admin/apps', { ...NEW_APP, redirect_uris: [] }),
        400,
        1,
      );
      const eleven = Array.from({ length: 11 }, (_, i) => `https://app.example.edu/cb${i}`);
      await expectError(
        await admin.call('POST', '/v1/admin/apps', { ...NEW_APP, redirect_uris: eleven }),
        400,
        1,
      );
      const ten = eleven.slice(0, 10);
      expect((await createApp({ ...NEW_APP, redirect_uris: ten })).app.redirect_uris).toEqual(ten);
    });

    it('refuses redirect URIs that are not https (or http on loopback), relative, or carry a fragment', async () => {
      for (const uri of [
        'http://app.example.edu/cb',
        'https://app.example.edu/cb#x',
        '/cb',
        'javascript:alert(1)',
      ]) {
        const response = await admin.call('POST', '/v1/admin/apps', { ...NEW_APP, redirect_uris: [uri] });
        expect(await expectError(response, 400, 1)).toContain(uri);
      }
      expect(
        (await createApp({ ...NEW_APP, redirect_uris: ['http://127.0.0.1:8000/cb'] })).app.disabled,
      ).toBe(false);
    });

    it('refuses unknown fields, missing fields and wrong types with 400 code 1', async () => {
      const bodies: unknown[] = [
        { ...NEW_APP, client_id: 'AAAAAAAAAAAAAAAA' },
        { ...NEW_APP, client_secret: 'chosen' },
        { name: 'x', emoji: '📚' },
        { ...NEW_APP, name: 5 },
        { ...NEW_APP, redirect_uris: 'https://library.example.edu/callback' },
        { ...NEW_APP, redirect_uris: [7] },
        [NEW_APP],
        'null',
        '"text"',
      ];
      for (const body of bodies) await expectError(await admin.call('POST', '/v1/admin/apps', body), 400, 1);
    });

    it('refuses a body that is not valid JSON or not valid UTF-8 with 400 code 1', async () => {
      await expectError(await admin.call('POST', '/v1/admin/apps', '{"name":'), 400, 1);
      const invalidUtf8 = Buffer.concat([
        Buffer.from('{"name":"'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}'),
      ]);
      const cookie = admin.sessionCookie ?? '';
      const response = await fetch(`${server.baseUrl}/v1/admin/apps`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.baseUrl, cookie },
        body: invalidUtf8,
      });
      await expectError(response, 400, 1);
    });

    it('refuses a 1 MB body with 413 code 1', async () => {
      const response = await admin.call('POST', '/v1/admin/apps', {
        ...NEW_APP,
        name: 'x'.repeat(1024 * 1024),
      });
      await expectError(response, 413, 1);
    });
  });

  describe('GET /v1/admin/apps', () => {
    it('lists every app, newest first, without secrets', async () => {
      const older = await createApp({ ...NEW_APP, name: 'Older' });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const newer = await createApp({ ...NEW_APP, name: 'Newer' });
      const response = await admin.call('GET', '/v1/admin/apps');
      expect(response.status).toBe(200);
      const { apps } = (await envelope<{ apps: AppJson[] }>(response)).data;
      const ids = apps.map((app) => app.client_id);
      expect(ids.indexOf(newer.app.client_id)).toBeLessThan(ids.indexOf(older.app.client_id));
      const times = apps.map((app) => Date.parse(app.created_at));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      expect(apps.find((app) => app.client_id === newer.app.client_id)).toEqual(newer.app);
    });
  });

  describe('GET /v1/admin/apps/:client_id', () => {
    it('answers the app', async () => {
      const { app } = await createApp();
      const response = await admin.call('GET', `/v1/admin/apps/${app.client_id}`);
      expect(response.status).toBe(200);
      expect((await envelope<{ app: AppJson }>(response)).data.app).toEqual(app);
    });

    it('answers an app imported with the previous system’s client_id shape', async () => {
      const clientId = 'f47ac10b-58cc-4372-a567-0e02b2c3d479';
      await server.ctx.store.apps.insert({
        clientId,
        name: 'Legacy',
        emoji: '🏫',
        secretHash: '0'.repeat(64),
        redirectUris: [],
        createdAt: Date.now(),
        disabled: false,
        allowRefreshTokens: true,
        allowedGroups: [],
        postLogoutRedirectUris: [],
        backchannelLogoutUri: null,
        backchannelLogoutLast: null,
      });
      const response = await admin.call('GET', `/v1/admin/apps/${clientId}`);
      expect(response.status).toBe(200);
      expect((await envelope<{ app: AppJson }>(response)).data.app.redirect_uris).toEqual([]);
    });

    it('answers 404 code 5 for an unknown client_id', async () => {
      await expectError(await admin.call('GET', '/v1/admin/apps/AAAAAAAAAAAAAAAA'), 404, 5);
    });

    it('answers 400 code 1 for a malformed client_id', async () => {
      for (const id of ['a.b', 'x'.repeat(65), '%F0%9F%93%9A', 'a%20b']) {
        await expectError(await admin.call('GET', `/v1/admin/apps/${id}`), 400, 1);
      }
    });
  });

  describe('PATCH /v1/admin/apps/:client_id', () => {
    it('changes name, emoji and redirect URIs and answers the app', async () => {
      const { app } = await createApp();
      const response = await admin.call('PATCH', `/v1/admin/apps/${app.client_id}`, {
        name: ' Library 2 ',
        emoji: '📖',
        redirect_uris: ['https://library.example.edu/cb2', 'http://localhost:3000/cb'],
      });
      expect(response.status).toBe(200);
      expect((await envelope<{ app: AppJson }>(response)).data.app).toEqual({
        ...app,
        name: 'Library 2',
        emoji: '📖',
        redirect_uris: ['https://library.example.edu/cb2', 'http://localhost:3000/cb'],
      });
    });

    it('disables and re-enables an app: a disabled app cannot authenticate', async () => {
      const { app, client_secret } = await createApp();
      const off = await admin.call('PATCH', `/v1/admin/apps/${app.client_id}`, { disabled: true });
      expect((await envelope<{ app: AppJson }>(off)).data.app.disabled).toBe(true);
      expect(await server.ctx.apps.authenticate(app.client_id, client_secret)).toBeUndefined();
      const on = await admin.call('PATCH', `/v1/admin/apps/${app.client_id}`, { disabled: false });
      expect((await envelope<{ app: AppJson }>(on)).data.app.disabled).toBe(false);
      expect(await server.ctx.apps.authenticate(app.client_id, client_secret)).toBeDefined();
    });

    it('switches refresh tokens off and on', async () => {
      const { app } = await createApp();
      const off = await admin.call('PATCH', `/v1/admin/apps/${app.client_id}`, {
        allow_refresh_tokens: false,
      });
      expect((await envelope<{ app: AppJson }>(off)).data.app.allow_refresh_tokens).toBe(false);
      expect((await server.ctx.store.apps.find(app.client_id))?.allowRefreshTokens).toBe(false);
    });

    it('requires at least one field', async () => {
      const { app } = await createApp();
      await expectError(await admin.call('PATCH', `/v1/admin/apps/${app.client_id}`, {}), 400, 1);
    });

    it('applies the creation rules to each field it changes, changing nothing on error', async () => {
      const { app } = await createApp();
      const bad: unknown[] = [
        { name: ' ' },
        { emoji: 'no' },
        { redirect_uris: [] },
        { redirect_uris: ['http://example.edu/cb'] },
        { name: 'Fine', emoji: '📚📚' },
        { disabled: 'yes' },
        { allow_refresh_tokens: 1 },
        { client_secret: 'x' },
        { secretHash: 'x' },
      ];
      for (const body of bad) {
        await expectError(await admin.call('PATCH', `/v1/admin/apps/${app.client_id}`, body), 400, 1);
      }
      const after = await admin.call('GET', `/v1/admin/apps/${app.client_id}`);
      expect((await envelope<{ app: AppJson }>(after)).data.app).toEqual(app);
    });

    it('answers 404 code 5 for an unknown client_id', async () => {
      await expectError(
        await admin.call('PATCH', '/v1/admin/apps/AAAAAAAAAAAAAAAA', { disabled: true }),
        404,
        5,
      );
    });
  });

  describe('POST /v1/admin/apps/:client_id/rotate-secret', () => {
    it('answers a new secret once; the old secret stops working', async () => {
      const { app, client_secret: oldSecret } = await createApp();
      const response = await admin.call('POST', `/v1/admin/apps/${app.client_id}/rotate-secret`);
      expect(response.status).toBe(200);
      const { data } = await envelope<{ client_id: string; client_secret: string }>(response);
      expect(data.client_id).toBe(app.client_id);
      expect(data.client_secret).not.toBe(oldSecret);
      expect(data.client_secret.length).toBeGreaterThanOrEqual(43);
      expect(await server.ctx.apps.authenticate(app.client_id, oldSecret)).toBeUndefined();
      expect(await server.ctx.apps.authenticate(app.client_id, data.client_secret)).toBeDefined();
    });

    it('accepts an empty JSON object as "no body" and refuses any other body', async () => {
      const { app } = await createApp();
      expect((await admin.call('POST', `/v1/admin/apps/${app.client_id}/rotate-secret`, {})).status).toBe(
        200,
      );
      const response = await admin.call('POST', `/v1/admin/apps/${app.client_id}/rotate-secret`, {
        secret: 'x',
      });
      await expectError(response, 400, 1);
    });

    it('answers 404 code 5 for an unknown client_id', async () => {
      await expectError(await admin.call('POST', '/v1/admin/apps/AAAAAAAAAAAAAAAA/rotate-secret'), 404, 5);
    });
  });

  describe('DELETE /v1/admin/apps/:client_id', () => {
    it('deletes the app: it is gone from the list and its secret stops working', async () => {
      const { app, client_secret } = await createApp();
      const response = await admin.call('DELETE', `/v1/admin/apps/${app.client_id}`);
      expect(response.status).toBe(200);
      expect(await envelope(response)).toEqual({ code: 0, msg: 'ok', data: {} });
      await expectError(await admin.call('GET', `/v1/admin/apps/${app.client_id}`), 404, 5);
      const { apps } = (await envelope<{ apps: AppJson[] }>(await admin.call('GET', '/v1/admin/apps'))).data;
      expect(apps.map((a) => a.client_id)).not.toContain(app.client_id);
      expect(await server.ctx.apps.authenticate(app.client_id, client_secret)).toBeUndefined();
    });

    it('answers 404 code 5 for an unknown or already deleted app', async () => {
      const { app } = await createApp();
      expect((await admin.call('DELETE', `/v1/admin/apps/${app.client_id}`)).status).toBe(200);
      await expectError(await admin.call('DELETE', `/v1/admin/apps/${app.client_id}`), 404, 5);
      await expectError(await admin.call('DELETE', '/v1/admin/apps/AAAAAAAAAAAAAAAA'), 404, 5);
    });
  });

  describe('POST /v1/admin/users', () => {
    it('creates a user who can then sign in', async () => {
      const uin = freshUin();
      const response = await admin.call('POST', '/v1/admin/users', {
        uin,
        password: PASSWORD,
        user_group: 'member',
      });
      expect(response.status).toBe(200);
      expect((await envelope<{ user: UserJson }>(response)).data.user).toEqual({
        uin,
        user_group: 'member',
        created_at: expect.stringMatching(ISO_MS),
        disabled: false,
        name: null,
        email: null,
        groups: [],
        expires_at: null,
        last_sign_in_at: null,
        locked_until: null,
        source: 'local',
        second_factors: [],
        roles: [],
      });
      await signIn(server, uin);
    });

    it('accepts a uin up to 2^53−1 and answers it as a JSON integer', async () => {
      const uin = Number.MAX_SAFE_INTEGER;
      const response = await admin.call('POST', '/v1/admin/users', {
        uin,
        password: PASSWORD,
        user_group: 'user',
      });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain(`"uin":${uin}`);
    });

    it('answers 409 code 6 when the uin is taken, leaving the user unchanged', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      const response = await admin.call('POST', '/v1/admin/users', {
        uin,
        password: 'another password',
        user_group: 'admin',
      });
      await expectError(response, 409, 6);
      expect((await server.ctx.store.users.find(uin))?.userGroup).toBe('user');
      await signIn(server, uin);
    });

    it('refuses a uin that is not a positive JSON integer up to 2^53−1', async () => {
      for (const uin of [0, -1, 1.5, '12345', 2 ** 53, 1e300, null]) {
        const response = await admin.call('POST', '/v1/admin/users', {
          uin,
          password: PASSWORD,
          user_group: 'user',
        });
        expect(await expectError(response, 400, 1)).toContain('uin');
      }
    });

    it('refuses a password shorter than 8 or longer than 256 characters', async () => {
      for (const password of ['short', 'x'.repeat(257)]) {
        const response = await admin.call('POST', '/v1/admin/users', {
          uin: freshUin(),
          password,
          user_group: 'user',
        });
        expect(await expectError(response, 400, 1)).toContain('password');
      }
    });

    it('refuses a group other than admin, member or user', async () => {
      for (const group of ['root', 'Admin', '', 3]) {
        const response = await admin.call('POST', '/v1/admin/users', {
          uin: freshUin(),
          password: PASSWORD,
          user_group: group,
        });
        expect(await expectError(response, 400, 1)).toContain('user_group');
      }
    });

    it('refuses unknown and missing fields', async () => {
      const bodies: unknown[] = [
        { uin: freshUin(), password: PASSWORD, user_group: 'user', disabled: true },
        { uin: freshUin(), password: PASSWORD },
        { uin: freshUin(), user_group: 'user' },
        {},
      ];
      for (const body of bodies) await expectError(await admin.call('POST', '/v1/admin/users', body), 400, 1);
    });
  });

  describe('GET /v1/admin/users', () => {
    // Uins 88800001… belong to this block only, so `search` isolates them from the other tests' users.
    const PREFIX = 888000;
    const uins = Array.from({ length: 7 }, (_, i) => PREFIX * 100 + i + 1);

    beforeAll(async () => {
      for (const [i, uin] of uins.entries()) {
        const user = await server.ctx.users.create(uin, PASSWORD, i < 3 ? 'member' : 'user');
        expect(user).toBeDefined();
      }
    });

    async function list(query: string): Promise<{ users: UserJson[]; total: number }> {
      const response = await admin.call('GET', `/v1/admin/users${query}`);
      expect(response.status).toBe(200);
      return (await envelope<{ users: UserJson[]; total: number }>(response)).data;
    }

    it('searches by uin prefix and counts every match', async () => {
      const page = await list(`?search=${PREFIX}`);
      expect(page.total).toBe(7);
      expect(page.users.map((user) => user.uin).sort()).toEqual(uins);
      expect(page.users[0]).toEqual({
        uin: expect.any(Number),
        user_group: expect.any(String),
        created_at: expect.stringMatching(ISO_MS),
        disabled: false,
        name: null,
        email: null,
        groups: [],
        expires_at: null,
        last_sign_in_at: null,
        locked_until: null,
        source: 'local',
        second_factors: [],
        roles: [],
      });
    });

    it('filters by group', async () => {
      const page = await list(`?search=${PREFIX}&group=member`);
      expect(page.total).toBe(3);
      expect(page.users.every((user) => user.user_group === 'member')).toBe(true);
    });

    it('treats empty search and group as no filter', async () => {
      const page = await list('?search=&group=');
      expect(page.total).toBeGreaterThanOrEqual(8);
    });

    it('pages with offset and limit, total counting every match', async () => {
      const first = await list(`?search=${PREFIX}&offset=0&limit=3`);
      const second = await list(`?search=${PREFIX}&offset=3&limit=3`);
      const third = await list(`?search=${PREFIX}&offset=6&limit=3`);
      expect([first.total, second.total, third.total]).toEqual([7, 7, 7]);
      expect([first.users.length, second.users.length, third.users.length]).toEqual([3, 3, 1]);
      const seen = [...first.users, ...second.users, ...third.users].map((user) => user.uin).sort();
      expect(seen).toEqual(uins);
    });

    it('answers 50 users by default and at most 200', async () => {
      const all = await list('');
      expect(all.users.length).toBe(Math.min(50, all.total));
      expect((await list('?limit=200')).users.length).toBe(Math.min(200, all.total));
    });

    it('refuses a limit outside 1–200 and non-numeric paging with 400 code 1', async () => {
      for (const query of ['?limit=0', '?limit=201', '?limit=abc', '?limit=-1', '?offset=1.5', '?offset=']) {
        await expectError(await admin.call('GET', `/v1/admin/users${query}`), 400, 1);
      }
    });

    it('refuses a non-digit search, an unknown group, a repeated or unknown parameter with 400 code 1', async () => {
      for (const query of [
        '?search=abc',
        '?search=1%25',
        '?group=root',
        '?group=user&group=member',
        '?sort=uin',
      ]) {
        await expectError(await admin.call('GET', `/v1/admin/users${query}`), 400, 1);
      }
    });
  });

  describe('PATCH /v1/admin/users/:uin', () => {
    it('changes the group', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      const response = await admin.call('PATCH', `/v1/admin/users/${uin}`, { user_group: 'member' });
      expect(response.status).toBe(200);
      expect((await envelope<{ user: UserJson }>(response)).data.user).toMatchObject({
        uin,
        user_group: 'member',
      });
    });

    it('resets the password: the new one signs in, the old one no longer does', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      const response = await admin.call('PATCH', `/v1/admin/users/${uin}`, {
        password: 'a brand new password',
      });
      expect(response.status).toBe(200);
      expect(await server.ctx.users.authenticate(uin, PASSWORD)).toBeUndefined();
      expect(await server.ctx.users.authenticate(uin, 'a brand new password')).toBeDefined();
    });

    it('disables a user, signing them out; enabling lets them sign in again', async () => {
      const uin = freshUin();
      const user = await signInAs(server, uin, 'member');
      expect((await user.call('GET', '/v1/account/me')).status).toBe(200);

      const off = await admin.call('PATCH', `/v1/admin/users/${uin}`, { disabled: true });
      expect((await envelope<{ user: UserJson }>(off)).data.user.disabled).toBe(true);
      await expectError(await user.call('GET', '/v1/account/me'), 401, -1);
      await expectError(await new Browser(server.baseUrl).login(uin, PASSWORD), 401, 1);

      const on = await admin.call('PATCH', `/v1/admin/users/${uin}`, { disabled: false });
      expect((await envelope<{ user: UserJson }>(on)).data.user.disabled).toBe(false);
      await signIn(server, uin);
    });

    it('changes several fields at once', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      const response = await admin.call('PATCH', `/v1/admin/users/${uin}`, {
        user_group: 'admin',
        disabled: true,
        password: 'a brand new password',
      });
      expect((await envelope<{ user: UserJson }>(response)).data.user).toMatchObject({
        user_group: 'admin',
        disabled: true,
      });
    });

    it('requires at least one field and refuses unknown fields and wrong types', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      const bodies: unknown[] = [
        {},
        { uin: 5 },
        { user_group: 'root' },
        { disabled: 'true' },
        { password: 'short' },
        { password: 12345678 },
      ];
      for (const body of bodies)
        await expectError(await admin.call('PATCH', `/v1/admin/users/${uin}`, body), 400, 1);
      expect(await server.ctx.users.authenticate(uin, PASSWORD)).toBeDefined();
    });

    it('answers 404 code 5 for an unknown uin and 400 code 1 for a malformed one', async () => {
      await expectError(await admin.call('PATCH', '/v1/admin/users/987654321', { disabled: true }), 404, 5);
      for (const uin of ['abc', '0', '-5', '012', '9007199254740992', '12345678901234567890']) {
        await expectError(await admin.call('PATCH', `/v1/admin/users/${uin}`, { disabled: true }), 400, 1);
      }
    });
  });
});

const ADMIN = 30_001;

// A server of its own: these rules depend on how many admins exist.
describeOnDatabases('the last enabled admin', { user: { group: 'admin', uin: ADMIN } }, (fixture) => {
  const { server } = fixture;
  const admin = fixture.user.browser;

  describe('PATCH /v1/admin/users/:uin', () => {
    it('refuses to let the last enabled admin disable or demote themself (409 code 6)', async () => {
      for (const body of [
        { disabled: true },
        { user_group: 'member' },
        { user_group: 'user', disabled: false },
      ]) {
        const msg = await expectError(await admin.call('PATCH', `/v1/admin/users/${ADMIN}`, body), 409, 6);
        expect(msg).toMatch(/admin/);
      }
      const me = await envelope<{ user_group: string }>(await admin.call('GET', '/v1/account/me'));
      expect(me.data.user_group).toBe('admin');
      expect(await server.ctx.store.users.countAdmins()).toBe(1);
    });

    it('changes nothing, not even the password, when it refuses', async () => {
      const body = { disabled: true, password: 'a password never applied' };
      await expectError(await admin.call('PATCH', `/v1/admin/users/${ADMIN}`, body), 409, 6);
      expect(await server.ctx.users.authenticate(ADMIN, PASSWORD)).toBeDefined();
    });

    it('still lets the last admin change their own password or re-affirm their group', async () => {
      const response = await admin.call('PATCH', `/v1/admin/users/${ADMIN}`, {
        user_group: 'admin',
        disabled: false,
        password: PASSWORD,
      });
      expect(response.status).toBe(200);
    });

    it('writes a change back, signing nobody out, when a concurrent change left no enabled admin', async () => {
      // The first count sees a second admin that another request is demoting at this moment.
      const count = vi.spyOn(server.ctx.store.users, 'countAdmins').mockResolvedValueOnce(2);
      try {
        const msg = await expectError(
          await admin.call('PATCH', `/v1/admin/users/${ADMIN}`, { disabled: true }),
          409,
          6,
        );
        expect(msg).toBe('cannot demote or disable the last enabled admin');
      } finally {
        count.mockRestore();
      }
      expect(await server.ctx.store.users.find(ADMIN)).toMatchObject({ userGroup: 'admin', disabled: false });
      // The refused change ended no session: the admin is still signed in.
      expect((await admin.call('GET', '/v1/account/me')).status).toBe(200);
    });

    it('does not count a disabled admin as an enabled one', async () => {
      await server.ctx.users.create(30_002, PASSWORD, 'admin');
      await server.ctx.users.setDisabled(30_002, true);
      await expectError(await admin.call('PATCH', `/v1/admin/users/${ADMIN}`, { disabled: true }), 409, 6);
    });

    it('lets an admin step down while another enabled admin remains', async () => {
      const other = await signInAs(server, 30_003, 'admin');
      const response = await admin.call('PATCH', `/v1/admin/users/${ADMIN}`, { user_group: 'member' });
      expect(response.status).toBe(200);
      await expectError(await admin.call('GET', '/v1/admin/users'), 403, 4);
      // …and now the other is the last one.
      await expectError(await other.call('PATCH', '/v1/admin/users/30003', { disabled: true }), 409, 6);
    });
  });
});
