/**
 * The pages' own calls added for "pages for everyone" (docs/interface.md#browser-session-api): the school's
 * branding, the app launcher, the listed/homepage_url app fields, and why a sign-in link is invalid — over
 * real HTTP on SQLite and PostgreSQL.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeOnDatabases, freshUin, PASSWORD, REDIRECT_URI, signedInUser } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import { obtainCode } from '../oauth/support.js';

interface Envelope<T = Record<string, unknown>> {
  code: number;
  msg: string;
  data: T;
}

const LOGO = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const logoDir = mkdtempSync(join(tmpdir(), 'campus-sso-logo-'));
const LOGO_FILE = join(logoDir, 'school.png');
writeFileSync(LOGO_FILE, LOGO);

describeOnDatabases(
  'GET /v1/branding',
  {
    transport: 'inject',
    env: {
      BRAND_NAME: 'Peking University Single Sign-On',
      BRAND_NAME_ZH: '北京大学统一身份认证',
      BRAND_COLOR: '#7A1C1C',
      BRAND_LOGO_FILE: LOGO_FILE,
      HELPDESK: 'https://help.example.edu/',
    },
  },
  ({ server }) => {
    it('answers the configured name, logo, colour and helpdesk without a session', async () => {
      const response = await server.fetch(`/v1/branding`);
      expect(response.status).toBe(200);
      expect(await json<Envelope>(response)).toEqual({
        code: 0,
        msg: 'ok',
        data: {
          name: 'Peking University Single Sign-On',
          name_zh: '北京大学统一身份认证',
          logo_url: '/v1/branding/logo',
          color: '#7a1c1c',
          helpdesk: 'https://help.example.edu/',
        },
      });
    });

    it('serves BRAND_LOGO_FILE at /v1/branding/logo with its image type', async () => {
      const response = await server.fetch(`/v1/branding/logo`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await response.arrayBuffer())).toEqual(LOGO);
    });
  },
);

describeOnDatabases(
  'GET /v1/branding without configuration',
  { transport: 'inject', databases: ['sqlite'] },
  ({ server }) => {
    it('answers null for everything, so the pages stay neutral', async () => {
      const body = await json<Envelope>(await server.fetch(`/v1/branding`));
      expect(body.data).toEqual({ name: null, name_zh: null, logo_url: null, color: null, helpdesk: null });
    });

    it('has no logo endpoint', async () => {
      expect((await server.fetch(`/v1/branding/logo`)).status).toBe(404);
    });
  },
);

describeOnDatabases(
  'admin API: listed and homepage_url',
  { transport: 'inject', user: 'admin' },
  ({ user }) => {
    const newApp = { name: 'Timetable', emoji: '🗓️', redirect_uris: [REDIRECT_URI] };

    it('registers an app unlisted without a homepage unless asked', async () => {
      const created = await json<Envelope<{ app: Record<string, unknown> }>>(
        await user.browser.call('POST', '/v1/admin/apps', newApp),
      );
      expect(created.data.app).toMatchObject({ listed: false, homepage_url: null });
    });

    it('stores listed and homepage_url on create and on PATCH, and clears homepage_url with null', async () => {
      const created = await json<Envelope<{ app: { client_id: string } }>>(
        await user.browser.call('POST', '/v1/admin/apps', {
          ...newApp,
          listed: true,
          homepage_url: 'https://timetable.example.edu/',
        }),
      );
      const path = `/v1/admin/apps/${created.data.app.client_id}`;
      expect(
        (await json<Envelope<{ app: unknown }>>(await user.browser.call('GET', path))).data.app,
      ).toMatchObject({ listed: true, homepage_url: 'https://timetable.example.edu/' });
      const patched = await user.browser.call('PATCH', path, { listed: false, homepage_url: null });
      expect((await json<Envelope<{ app: unknown }>>(patched)).data.app).toMatchObject({
        listed: false,
        homepage_url: null,
      });
    });

    it('refuses a homepage_url that is not https (or http on loopback) with 400 code 1', async () => {
      for (const homepage_url of ['javascript:alert(1)', 'http://timetable.example.edu/', 'timetable']) {
        const response = await user.browser.call('POST', '/v1/admin/apps', { ...newApp, homepage_url });
        expect(response.status).toBe(400);
        const body = await json<Envelope>(response);
        expect(body.code).toBe(1);
        expect(body.msg).toMatch(/^homepage_url /);
      }
    });

    it('refuses a listed that is not a boolean with 400 code 1', async () => {
      const response = await user.browser.call('POST', '/v1/admin/apps', { ...newApp, listed: 1 });
      expect(response.status).toBe(400);
      expect((await json<Envelope>(response)).code).toBe(1);
    });
  },
);

describeOnDatabases('GET /v1/account/apps', { transport: 'inject' }, ({ server }) => {
  it('answers 401 code -1 without a session', async () => {
    const response = await server.fetch(`/v1/account/apps`);
    expect(response.status).toBe(401);
    expect((await json<Envelope>(response)).code).toBe(-1);
  });

  it('lists the apps the user authorized and the listed apps, enabled ones only, by name', async () => {
    const { apps } = server.ctx;
    const authorized = await apps.create({ name: 'Library', emoji: '📚', redirectUris: [REDIRECT_URI] });
    const listed = await apps.create({
      name: 'Canteen',
      emoji: '🍜',
      redirectUris: ['https://canteen.example.edu/cb'],
      listed: true,
      homepageUrl: 'https://canteen.example.edu/menu',
    });
    const hidden = await apps.create({ name: 'Unlisted', emoji: '🙈', redirectUris: [REDIRECT_URI] });
    const disabled = await apps.create({
      name: 'Old portal',
      emoji: '🏚️',
      redirectUris: [REDIRECT_URI],
      listed: true,
    });
    await server.ctx.store.apps.update(disabled.app.clientId, { disabled: true });
    const member = await signedInUser(server);
    await obtainCode(member.browser, {
      app: authorized.app,
      clientId: authorized.app.clientId,
      clientSecret: authorized.clientSecret,
    });

    const response = await member.browser.call('GET', '/v1/account/apps');
    expect(response.status).toBe(200);
    const body = await json<Envelope<{ apps: unknown[] }>>(response);
    expect(body.data.apps).toEqual([
      {
        client_id: listed.app.clientId,
        name: 'Canteen',
        emoji: '🍜',
        homepage_url: 'https://canteen.example.edu/menu',
      },
      // Authorized, without a homepage: the origin of its redirect URI.
      {
        client_id: authorized.app.clientId,
        name: 'Library',
        emoji: '📚',
        homepage_url: 'https://app.example.edu/',
      },
    ]);
    expect(JSON.stringify(body)).not.toContain(hidden.app.clientId);
  });

  it('leaves out, listed or authorized, the apps whose allowed_groups exclude the user', async () => {
    const { apps } = server.ctx;
    const listedFor = (name: string, allowedGroups: string[]) =>
      apps.create({ name, emoji: '🎓', redirectUris: [REDIRECT_URI], listed: true, allowedGroups });
    const teachers = await listedFor('Gradebook', ['teachers']);
    const staff = await listedFor('Staff room', ['teachers', 'staff']);
    const everyone = await listedFor('Timetable', []);
    const authorized = await apps.create({ name: 'Lab booking', emoji: '🧪', redirectUris: [REDIRECT_URI] });
    const uin = freshUin();
    await server.ctx.users.create(uin, PASSWORD, 'member', { groups: ['staff'] });
    const browser = new Browser(server);
    expect((await browser.login(uin, PASSWORD)).status).toBe(200);
    await obtainCode(browser, { ...authorized, clientId: authorized.app.clientId });
    // Closed to the user's groups after they authorized it: the authorization request now refuses them.
    await server.ctx.store.apps.update(authorized.app.clientId, { allowedGroups: ['science'] });

    const launcher = async (who: Browser) => {
      const response = await who.call('GET', '/v1/account/apps');
      expect(response.status).toBe(200);
      return (await json<Envelope<{ apps: { client_id: string }[] }>>(response)).data.apps.map(
        (tile) => tile.client_id,
      );
    };
    const seen = await launcher(browser);
    expect(seen).toContain(staff.app.clientId);
    expect(seen).toContain(everyone.app.clientId);
    expect(seen).not.toContain(teachers.app.clientId);
    expect(seen).not.toContain(authorized.app.clientId);
    // A teacher sees the teachers' app; a user in no group only the app open to everyone.
    const teacherUin = freshUin();
    await server.ctx.users.create(teacherUin, PASSWORD, 'member', { groups: ['teachers'] });
    const teacher = new Browser(server);
    expect((await teacher.login(teacherUin, PASSWORD)).status).toBe(200);
    expect(await launcher(teacher)).toEqual(
      expect.arrayContaining([teachers.app.clientId, staff.app.clientId, everyone.app.clientId]),
    );
    const { browser: nobody } = await signedInUser(server);
    const nobodySees = await launcher(nobody);
    expect(nobodySees).toContain(everyone.app.clientId);
    expect(nobodySees).not.toContain(teachers.app.clientId);
    expect(nobodySees).not.toContain(staff.app.clientId);
  });
});

describeOnDatabases(
  'GET /v1/oauth2/app-info: why a sign-in link is invalid',
  { transport: 'inject', client: true },
  ({ server, client }) => {
    const appInfo = (clientId: string, redirectUri: string) =>
      server.fetch(
        `/v1/oauth2/app-info?client_id=${encodeURIComponent(clientId)}&redirect_uri=${encodeURIComponent(redirectUri)}`,
      );

    it('answers reason unknown_client, without a name, for an unknown client_id', async () => {
      const response = await appInfo('AAAAAAAAAAAAAAAA', REDIRECT_URI);
      expect(response.status).toBe(400);
      expect(await json<Envelope>(response)).toEqual({
        code: 3,
        msg: 'unknown or disabled client',
        data: { reason: 'unknown_client' },
      });
    });

    it('answers reason unregistered_redirect_uri and the app name for an address it did not register', async () => {
      const body = await json<Envelope>(await appInfo(client.clientId, 'https://evil.example/cb'));
      expect(body).toEqual({
        code: 3,
        msg: 'redirect_uri is not registered for this app',
        data: { reason: 'unregistered_redirect_uri', name: 'Library' },
      });
    });

    it('answers reason disabled_client and the app name for a disabled app, keeping msg', async () => {
      const { app } = await server.ctx.apps.create({
        name: 'Archive',
        emoji: '🗄️',
        redirectUris: [REDIRECT_URI],
      });
      await server.ctx.store.apps.update(app.clientId, { disabled: true });
      const body = await json<Envelope>(await appInfo(app.clientId, REDIRECT_URI));
      expect(body).toEqual({
        code: 3,
        msg: 'unknown or disabled client',
        data: { reason: 'disabled_client', name: 'Archive' },
      });
    });
  },
);
