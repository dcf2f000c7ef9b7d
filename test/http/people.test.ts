/**
 * People and groups (docs/interface.md#people-groups-and-audit): profiles and group tags in the admin API,
 * accounts that expire, bulk actions, Unlock, apps open to some groups only, the profile claims of OIDC, and
 * `users disable-dormant`.
 */
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { disableDormantCommand } from '../../src/cli/disable-dormant.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import { startTestServer } from '../helpers/server.js';
import {
  PASSWORD,
  REDIRECT_URI,
  authorizeRedirect,
  exchangeCode,
  freshUin,
  getUserInfo,
  obtainCode,
  registerClient,
  signedInUser,
  tokensFor,
} from '../oauth/support.js';

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}
interface UserJson {
  uin: number;
  name: string | null;
  email: string | null;
  groups: string[];
  expires_at: string | null;
  last_sign_in_at: string | null;
  locked_until: string | null;
  disabled: boolean;
  user_group: string;
}

const DAY = 24 * 3600 * 1000;

describeOnDatabases(
  'people and groups',
  { transport: 'inject', user: 'admin' },
  ({ database, server, user }) => {
    const admin = user.browser;

    async function patchUser(uin: number, body: unknown): Promise<Response> {
      return admin.call('PATCH', `/v1/admin/users/${uin}`, body);
    }
    async function userJson(response: Response): Promise<UserJson> {
      expect(response.status).toBe(200);
      return (await json<Envelope<{ user: UserJson }>>(response)).data.user;
    }

    describe('PATCH /v1/admin/users/:uin', () => {
      it('sets and clears name, email, groups and expires_at, and answers them', async () => {
        const uin = freshUin();
        await server.ctx.users.create(uin, PASSWORD, 'user');
        const set = await userJson(
          await patchUser(uin, {
            name: '  Li Hua ',
            email: 'li.hua@example.edu',
            groups: ['class-2026-3', 'choir', 'choir'],
            expires_at: '2030-07-01T00:00:00Z',
          }),
        );
        expect(set).toMatchObject({
          name: 'Li Hua',
          email: 'li.hua@example.edu',
          groups: ['class-2026-3', 'choir'],
          expires_at: '2030-07-01T00:00:00.000Z',
          last_sign_in_at: null,
        });
        const cleared = await userJson(
          await patchUser(uin, { name: null, email: '', expires_at: null, groups: [] }),
        );
        expect(cleared).toMatchObject({ name: null, email: null, groups: [], expires_at: null });
      });

      it('refuses a bad email, a bad group tag, more than 32 groups, a long name or a bad time with 400 code 1', async () => {
        const uin = freshUin();
        await server.ctx.users.create(uin, PASSWORD, 'user');
        for (const body of [
          { email: 'not an address' },
          { groups: ['Teachers'] },
          { groups: ['a b'] },
          { groups: Array.from({ length: 33 }, (_, i) => `g${i}`) },
          { name: 'x'.repeat(65) },
          { expires_at: 'next tuesday' },
        ]) {
          const response = await patchUser(uin, body);
          expect(response.status, JSON.stringify(body)).toBe(400);
          expect((await json<Envelope<object>>(response)).code).toBe(1);
        }
      });

      it('creates users with a profile (POST /v1/admin/users)', async () => {
        const uin = freshUin();
        const response = await admin.call('POST', '/v1/admin/users', {
          uin,
          password: PASSWORD,
          user_group: 'member',
          name: '王老师',
          groups: ['teachers'],
        });
        expect(await userJson(response)).toMatchObject({
          uin,
          name: '王老师',
          groups: ['teachers'],
          email: null,
        });
      });

      it('lists by group tag (GET /v1/admin/users?tag=)', async () => {
        const tagged = freshUin();
        await server.ctx.users.create(tagged, PASSWORD, 'user', { groups: ['robotics_club'] });
        // `_` must match itself only, not any character.
        await server.ctx.users.create(freshUin(), PASSWORD, 'user', { groups: ['roboticsxclub'] });
        const response = await admin.call('GET', '/v1/admin/users?tag=robotics_club');
        const page = (await json<Envelope<{ users: UserJson[]; total: number }>>(response)).data;
        expect(page.users.map((u) => u.uin)).toEqual([tagged]);
      });
    });

    describe('POST /v1/account/login', () => {
      it('records last_sign_in_at at each successful sign-in', async () => {
        const before = Date.now();
        const { uin } = await signedInUser(server, 'user');
        const user = await server.ctx.store.users.find(uin);
        expect(user?.lastSignInAt).toBeGreaterThanOrEqual(before);
      });
    });

    describe('expires_at', () => {
      it('an expired account is refused at sign-in like a disabled one', async () => {
        const uin = freshUin();
        await server.ctx.users.create(uin, PASSWORD, 'user', { expiresAt: Date.now() - 1000 });
        const response = await new Browser(server).login(uin, PASSWORD);
        expect(response.status).toBe(401);
        expect((await json<Envelope<object>>(response)).code).toBe(1);
      });

      it('once past, its tokens stop working and its sessions end', async () => {
        const client = await registerClient(server);
        const { uin, browser } = await signedInUser(server, 'user');
        const tokens = await tokensFor(server, browser, client, { scope: 'openid offline_access' });
        expect((await getUserInfo(server, tokens.access_token)).status).toBe(200);
        await server.ctx.store.users.update(uin, { expiresAt: Date.now() - 1 });
        expect((await getUserInfo(server, tokens.access_token)).status).toBe(401);
        const userinfo = await server.fetch(`/v1/oauth2/userinfo`, {
          headers: { authorization: `Bearer ${tokens.access_token}` },
        });
        expect(userinfo.status).toBe(401);
        expect((await browser.call('GET', '/v1/account/me')).status).toBe(401);
      });

      it('a future expiry changes nothing until it comes', async () => {
        const client = await registerClient(server);
        const { uin, browser } = await signedInUser(server, 'user');
        await server.ctx.store.users.update(uin, { expiresAt: Date.now() + DAY });
        const tokens = await tokensFor(server, browser, client);
        expect((await getUserInfo(server, tokens.access_token)).status).toBe(200);
      });
    });

    describe('POST /v1/admin/users/bulk', () => {
      async function bulk(body: unknown): Promise<Response> {
        return admin.call('POST', '/v1/admin/users/bulk', body);
      }
      async function results(body: unknown): Promise<{ uin: number; status: string }[]> {
        const response = await bulk(body);
        expect(response.status).toBe(200);
        return (await json<Envelope<{ results: { uin: number; status: string }[] }>>(response)).data.results;
      }

      it('adds and removes a group tag, keeping the other tags', async () => {
        const [a, b] = [freshUin(), freshUin()];
        await server.ctx.users.create(a, PASSWORD, 'user', { groups: ['choir'] });
        await server.ctx.users.create(b, PASSWORD, 'user');
        expect(await results({ uins: [a, b], action: 'add_tag', tag: 'class-2026-3' })).toEqual([
          { uin: a, status: 'changed' },
          { uin: b, status: 'changed' },
        ]);
        expect((await server.ctx.store.users.find(a))?.groups).toEqual(['choir', 'class-2026-3']);
        expect((await server.ctx.store.users.find(b))?.groups).toEqual(['class-2026-3']);
        await results({ uins: [a, b], action: 'remove_tag', tag: 'class-2026-3' });
        expect((await server.ctx.store.users.find(a))?.groups).toEqual(['choir']);
        expect((await server.ctx.store.users.find(b))?.groups).toEqual([]);
      });

      it('changes the group, sets the expiry, disables and enables; unknown uins are reported', async () => {
        const [a, b, missing] = [freshUin(), freshUin(), freshUin()];
        for (const uin of [a, b]) await server.ctx.users.create(uin, PASSWORD, 'user');
        await results({ uins: [a, b], action: 'set_group', user_group: 'member' });
        await results({ uins: [a, b], action: 'set_expiry', expires_at: '2031-01-31' });
        const answer = await results({ uins: [a, missing], action: 'disable' });
        expect(answer).toEqual([
          { uin: a, status: 'changed' },
          { uin: missing, status: 'not_found' },
        ]);
        expect(await server.ctx.store.users.find(a)).toMatchObject({
          userGroup: 'member',
          expiresAt: Date.UTC(2031, 0, 31),
          disabled: true,
        });
        expect(await server.ctx.store.users.find(b)).toMatchObject({ disabled: false });
        await results({ uins: [a], action: 'enable' });
        expect(await server.ctx.store.users.find(a)).toMatchObject({ disabled: false });
      });

      it('never disables the last enabled admin', async () => {
        const fresh = await startTestServer({ transport: 'inject', database });
        try {
          const { uin, browser } = await signedInUser(fresh, 'admin');
          const response = await browser.call('POST', '/v1/admin/users/bulk', {
            uins: [uin],
            action: 'disable',
          });
          const data = (await json<Envelope<{ results: { status: string }[] }>>(response)).data;
          expect(data.results[0]?.status).toBe('error');
          expect(await fresh.ctx.store.users.find(uin)).toMatchObject({ disabled: false });
        } finally {
          await fresh.close();
        }
      });

      it('refuses an action without its field, or a bad tag, with 400 code 1', async () => {
        const uin = freshUin();
        for (const body of [
          { uins: [uin], action: 'set_group' },
          { uins: [uin], action: 'add_tag' },
          { uins: [uin], action: 'add_tag', tag: 'No Caps' },
          { uins: [uin], action: 'set_expiry' },
          { uins: [], action: 'disable' },
          { uins: [uin], action: 'delete' },
        ]) {
          const response = await bulk(body);
          expect(response.status, JSON.stringify(body)).toBe(400);
        }
      });
    });

    describe('POST /v1/admin/users/:uin/unlock', () => {
      it('the list shows "locked until" after repeated failures, and Unlock lets the owner sign in at once', async () => {
        const uin = freshUin();
        await server.ctx.users.create(uin, PASSWORD, 'user');
        const guesser = new Browser(server);
        for (let i = 0; i < 5; i++) await guesser.login(uin, 'wrong password!');
        expect((await new Browser(server).login(uin, PASSWORD)).status).toBe(429);

        const listed = await admin.call('GET', `/v1/admin/users?search=${uin}`);
        const [user] = (await json<Envelope<{ users: UserJson[] }>>(listed)).data.users;
        expect(Date.parse(user?.locked_until ?? '')).toBeGreaterThan(Date.now());

        const unlock = await admin.call('POST', `/v1/admin/users/${uin}/unlock`, {});
        expect(unlock.status).toBe(200);
        expect((await new Browser(server).login(uin, PASSWORD)).status).toBe(200);
        const after = await admin.call('GET', `/v1/admin/users?search=${uin}`);
        expect((await json<Envelope<{ users: UserJson[] }>>(after)).data.users[0]?.locked_until).toBeNull();
      });

      it('answers 404 code 5 for an unknown user', async () => {
        const response = await admin.call('POST', `/v1/admin/users/${freshUin()}/unlock`, {});
        expect(response.status).toBe(404);
        expect((await json<Envelope<object>>(response)).code).toBe(5);
      });
    });

    describe('allowed_groups', () => {
      async function groupApp(allowed: string[]): Promise<Awaited<ReturnType<typeof registerClient>>> {
        const client = await registerClient(server);
        const response = await admin.call('PATCH', `/v1/admin/apps/${client.clientId}`, {
          allowed_groups: allowed,
        });
        expect(response.status).toBe(200);
        const data = (await json<Envelope<{ app: { allowed_groups: string[] } }>>(response)).data;
        expect(data.app.allowed_groups).toEqual(allowed);
        return { ...client, app: { ...client.app, allowedGroups: allowed } };
      }

      it('a user outside them gets access_denied, and app-info says allowed: false', async () => {
        const client = await groupApp(['teachers']);
        const { browser } = await signedInUser(server, 'member');
        const url = await authorizeRedirect(browser, {
          client_id: client.clientId,
          redirect_uri: REDIRECT_URI,
          state: 's1',
        });
        expect(url.searchParams.get('error')).toBe('access_denied');
        expect(url.searchParams.get('state')).toBe('s1');
        expect(url.searchParams.get('code')).toBeNull();
        const info = await browser.call(
          'GET',
          `/v1/oauth2/app-info?client_id=${client.clientId}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`,
        );
        expect((await json<Envelope<{ allowed?: boolean }>>(info)).data.allowed).toBe(false);
      });

      it('a member of one of them gets a code; an app with none is open to everyone', async () => {
        const client = await groupApp(['teachers', 'staff']);
        const uin = freshUin();
        await server.ctx.users.create(uin, PASSWORD, 'member', { groups: ['staff'] });
        const browser = new Browser(server);
        await browser.login(uin, PASSWORD);
        await obtainCode(browser, client);
        const info = await browser.call(
          'GET',
          `/v1/oauth2/app-info?client_id=${client.clientId}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`,
        );
        expect((await json<Envelope<Record<string, unknown>>>(info)).data).not.toHaveProperty('allowed');
        const open = await registerClient(server);
        const { browser: anyone } = await signedInUser(server, 'user');
        await obtainCode(anyone, open);
      });

      it('refuses a bad group tag with 400 code 1', async () => {
        const client = await registerClient(server);
        const response = await admin.call('PATCH', `/v1/admin/apps/${client.clientId}`, {
          allowed_groups: ['Teachers!'],
        });
        expect(response.status).toBe(400);
      });
    });

    describe('OIDC profile claims', () => {
      async function personWithProfile(): Promise<{ uin: number; browser: Browser }> {
        const uin = freshUin();
        await server.ctx.users.create(uin, PASSWORD, 'member', {
          name: '李华',
          email: 'li@example.edu',
          groups: ['class-2026-3'],
        });
        const browser = new Browser(server);
        expect((await browser.login(uin, PASSWORD)).status).toBe(200);
        return { uin, browser };
      }
      const userinfo = async (token: string): Promise<Record<string, unknown>> =>
        json(
          await server.fetch(`/v1/oauth2/userinfo`, {
            headers: { authorization: `Bearer ${token}` },
          }),
        );

      it('profile, email and groups release name, preferred_username, email, email_verified and groups', async () => {
        const client = await registerClient(server);
        const { uin, browser } = await personWithProfile();
        const tokens = await tokensFor(server, browser, client, { scope: 'openid profile email groups' });
        const expected = {
          name: '李华',
          preferred_username: String(uin),
          email: 'li@example.edu',
          email_verified: false,
          groups: ['class-2026-3'],
        };
        expect(decodeJwt(tokens.id_token ?? '')).toMatchObject({ sub: String(uin), ...expected });
        expect(await userinfo(tokens.access_token)).toEqual({
          sub: String(uin),
          uin,
          user_group: 'member',
          created_at: expect.any(String),
          ...expected,
        });
      });

      it('releases only what the scope asks for', async () => {
        const client = await registerClient(server);
        const { uin, browser } = await personWithProfile();
        const tokens = await tokensFor(server, browser, client, { scope: 'openid groups' });
        const claims = decodeJwt(tokens.id_token ?? '');
        expect(claims.groups).toEqual(['class-2026-3']);
        for (const absent of ['name', 'preferred_username', 'email', 'email_verified']) {
          expect(claims).not.toHaveProperty(absent);
        }
        expect(Object.keys(await userinfo(tokens.access_token)).sort()).toEqual(
          ['created_at', 'groups', 'sub', 'uin', 'user_group'].sort(),
        );
        const plain = await tokensFor(server, browser, client, { scope: 'openid' });
        expect(await userinfo(plain.access_token)).toEqual({
          sub: String(uin),
          uin,
          user_group: 'member',
          created_at: expect.any(String),
        });
      });

      it('leaves the legacy user information unchanged', async () => {
        const client = await registerClient(server);
        const { uin, browser } = await personWithProfile();
        const code = await obtainCode(browser, client, { scope: 'openid profile email groups' });
        const tokens = await json<{ access_token: string }>(await exchangeCode(server, client, code));
        const body = await (await getUserInfo(server, tokens.access_token)).text();
        expect(body).toMatch(
          new RegExp(
            `^\\{"code":0,"msg":"ok","data":\\{"created_at":"[^"]+","uin":${uin},"user_group":"member"\\}\\}$`,
          ),
        );
      });

      it('announces the scopes and claims in the metadata', async () => {
        const metadata = await json<{ scopes_supported: string[]; claims_supported: string[] }>(
          await server.fetch(`/.well-known/openid-configuration`),
        );
        expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['profile', 'email', 'groups']));
        expect(metadata.claims_supported).toEqual(
          expect.arrayContaining(['name', 'preferred_username', 'email', 'email_verified', 'groups']),
        );
      });
    });

    describe('campus-sso users disable-dormant', () => {
      it('lists accounts not signed in for N days (never signed in: since creation), and --apply disables them', async () => {
        const fresh = await startTestServer({ transport: 'inject', database });
        try {
          const now = Date.now();
          const insert = (uin: number, createdAt: number, lastSignInAt: number | null) =>
            fresh.ctx.store.users.insert({
              uin,
              passwordHash: '!',
              userGroup: 'user',
              createdAt,
              mustChangePassword: false,
              disabled: false,
              lastSignInAt,
            });
          await insert(1001, now - 400 * DAY, now - 200 * DAY); // dormant
          await insert(1002, now - 400 * DAY, null); // never signed in, old: dormant
          await insert(1003, now - 10 * DAY, null); // never signed in, new
          await insert(1004, now - 400 * DAY, now - DAY); // active
          const lines: string[] = [];
          await disableDormantCommand(fresh.config, ['--days', '180'], (line) => lines.push(line));
          const listed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
          expect(listed.slice(0, -1).map((row) => [row.uin, row.action])).toEqual([
            [1002, 'listed'],
            [1001, 'listed'],
          ]);
          expect(listed.at(-1)).toMatchObject({ dormant: 2, applied: false, disabled: 0 });
          expect(await fresh.ctx.store.users.find(1001)).toMatchObject({ disabled: false });

          lines.length = 0;
          await disableDormantCommand(fresh.config, ['--days', '180', '--apply'], (line) => lines.push(line));
          expect(JSON.parse(lines.at(-1) ?? '{}')).toMatchObject({ dormant: 2, applied: true, disabled: 2 });
          expect(await fresh.ctx.store.users.find(1001)).toMatchObject({ disabled: true });
          expect(await fresh.ctx.store.users.find(1002)).toMatchObject({ disabled: true });
          expect(await fresh.ctx.store.users.find(1003)).toMatchObject({ disabled: false });
          expect(await fresh.ctx.store.users.find(1004)).toMatchObject({ disabled: false });
          const audit = await fresh.ctx.store.audit.list({ actions: ['users_disabled_dormant'], limit: 5 });
          expect(audit).toHaveLength(1);
        } finally {
          await fresh.close();
        }
      });
    });
  },
);
