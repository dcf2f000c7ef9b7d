/**
 * A password set by someone other than its owner — an admin creating the user or resetting their password,
 * a CSV import, the first start — must be changed at the next sign-in (docs/security.md): until then every
 * call but `POST /v1/account/password`, `GET /v1/account/me` and sign-out (the page's and the apps'
 * RP-initiated one) answers 403 code 9. A password the operator gives the command line need not be changed.
 * Over real HTTP, on SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { signIdToken } from '../../src/oauth/id-token.js';
import { EnvelopeCode } from '../../src/shared/envelope.js';
import { type DatabaseSuiteOptions, describeOnDatabases, REDIRECT_URI } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';

interface Envelope<T = Record<string, unknown>> {
  code: number;
  msg: string;
  data: T;
}

const ADMIN_PASSWORD = 'the admin passphrase 1';
const GIVEN_PASSWORD = 'a password someone gave me';
const CHOSEN_PASSWORD = 'one I chose myself 2024';

async function envelope<T = Record<string, unknown>>(response: Response): Promise<Envelope<T>> {
  return json<Envelope<T>>(response);
}

async function expectPasswordChangeRequired(response: Response): Promise<void> {
  const body = await envelope(response);
  expect({ status: response.status, code: body.code, data: body.data }).toEqual({
    status: 403,
    code: EnvelopeCode.PasswordChangeRequired,
    data: {},
  });
}

const SUITE: DatabaseSuiteOptions = {
  transport: 'inject',
  // The admin is made as the operator would, at the command line: nothing to change.
  user: { group: 'admin', uin: 60_000, password: ADMIN_PASSWORD },
  client: true,
};

describeOnDatabases('a password that must be changed', SUITE, ({ server, user, client }) => {
  const admin = user.browser;
  let nextUin = 70_000;
  const freshUin = (): number => nextUin++;

  /** A user an admin created through the admin API, signed in with the password the admin chose. */
  async function adminCreated(
    group: 'admin' | 'member' = 'member',
  ): Promise<{ uin: number; browser: Browser }> {
    const uin = freshUin();
    const created = await admin.call('POST', '/v1/admin/users', {
      uin,
      password: GIVEN_PASSWORD,
      user_group: group,
    });
    expect(created.status).toBe(200);
    const browser = new Browser(server);
    expect((await browser.login(uin, GIVEN_PASSWORD)).status).toBe(200);
    return { uin, browser };
  }

  function changePassword(browser: Browser, current = GIVEN_PASSWORD): Promise<Response> {
    return browser.call('POST', '/v1/account/password', {
      current_password: current,
      new_password: CHOSEN_PASSWORD,
    });
  }

  /** Every call a signed-in user (an admin here, so the admin API counts too) may make but the allowed three. */
  const guardedCalls = (): Array<[string, string, unknown?]> => [
    ['GET', '/v1/account/consents'],
    ['DELETE', `/v1/account/consents/${client.clientId}`],
    [
      'GET',
      `/v1/oauth2/app-info?client_id=${client.clientId}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`,
    ],
    [
      'POST',
      '/v1/oauth2/authorize',
      { client_id: client.clientId, redirect_uri: REDIRECT_URI, decision: 'allow' },
    ],
    ['GET', '/v1/admin/users'],
    ['GET', '/v1/admin/apps'],
    ['POST', '/v1/admin/users', { uin: 79_999, password: GIVEN_PASSWORD, user_group: 'user' }],
    ['PATCH', '/v1/admin/users/60000', { disabled: true }],
  ];

  describe('POST /v1/account/login', () => {
    it('signs in a user an admin created and says must_change_password', async () => {
      const uin = freshUin();
      await admin.call('POST', '/v1/admin/users', { uin, password: GIVEN_PASSWORD, user_group: 'member' });
      const response = await new Browser(server).login(uin, GIVEN_PASSWORD);
      expect(response.status).toBe(200);
      expect((await envelope(response)).data).toEqual({
        uin,
        user_group: 'member',
        must_change_password: true,
      });
    });

    it('says nothing of the kind for a user made at the command line', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, GIVEN_PASSWORD, 'member');
      const response = await new Browser(server).login(uin, GIVEN_PASSWORD);
      expect((await envelope(response)).data).toEqual({ uin, user_group: 'member' });
    });
  });

  describe('GET /v1/account/me', () => {
    it('answers with must_change_password: true', async () => {
      const { uin, browser } = await adminCreated();
      const response = await browser.call('GET', '/v1/account/me');
      expect(response.status).toBe(200);
      expect((await envelope(response)).data).toMatchObject({ uin, must_change_password: true });
    });
  });

  describe('every other call', () => {
    it('answers 403 code 9 until the password is changed, the admin API included', async () => {
      const { browser } = await adminCreated('admin');
      for (const [method, path, body] of guardedCalls()) {
        await expectPasswordChangeRequired(await browser.call(method, path, body));
      }
      // Nothing was done by the refused calls.
      expect((await server.ctx.store.users.find(60_000))?.disabled).toBe(false);
      expect(await server.ctx.store.users.find(79_999)).toBeUndefined();
    });
  });

  describe('POST /v1/account/logout', () => {
    it('signs the user out', async () => {
      const { browser } = await adminCreated();
      expect((await browser.call('POST', '/v1/account/logout', {})).status).toBe(200);
      expect((await browser.call('GET', '/v1/account/me')).status).toBe(401);
    });
  });

  describe('GET /v1/oauth2/logout (RP-initiated)', () => {
    it('with a hint for the user, signs them out at once; without one, sends them to the sign-out page', async () => {
      const { uin, browser } = await adminCreated();
      const asked = await browser.call('GET', `/v1/oauth2/logout?client_id=${client.clientId}`);
      expect(asked.status).toBe(302);
      expect(asked.headers.get('location')).toBe(`${server.baseUrl}/#/logout?client_id=${client.clientId}`);
      expect((await browser.call('GET', '/v1/account/me')).status).toBe(200);

      const user = await server.ctx.store.users.find(uin);
      const hint = await signIdToken(server.ctx, {
        user: user!,
        clientId: client.clientId,
        authTime: Date.now(),
        amr: ['pwd'],
        nonce: null,
        accessToken: 'x',
        issuedAt: Date.now(),
      });
      const response = await browser.call('GET', `/v1/oauth2/logout?id_token_hint=${hint}`);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${server.baseUrl}/#/logout?done=1`);
      expect((await browser.call('GET', '/v1/account/me')).status).toBe(401);
    });
  });

  describe('POST /v1/account/password', () => {
    it('releases the user: every call answers again, and me no longer says must_change_password', async () => {
      const { uin, browser } = await adminCreated('admin');
      expect((await changePassword(browser)).status).toBe(200);
      const me = await browser.call('GET', '/v1/account/me');
      expect((await envelope(me)).data).not.toHaveProperty('must_change_password');
      for (const [method, path, body] of guardedCalls().slice(0, 6)) {
        const response = await browser.call(method, path, body);
        expect((await envelope(response)).code, `${method} ${path}`).not.toBe(
          EnvelopeCode.PasswordChangeRequired,
        );
      }
      const again = await new Browser(server).login(uin, CHOSEN_PASSWORD);
      expect((await envelope(again)).data).toEqual({ uin, user_group: 'admin' });
    });

    it('still needs the current password', async () => {
      const { browser } = await adminCreated();
      expect((await changePassword(browser, 'not the password')).status).toBe(401);
      await expectPasswordChangeRequired(await browser.call('GET', '/v1/account/consents'));
    });
  });

  describe('who sets a password that must be changed', () => {
    it('an admin resetting a password (PATCH /v1/admin/users/:uin)', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, CHOSEN_PASSWORD, 'member');
      expect((await admin.call('PATCH', `/v1/admin/users/${uin}`, { password: GIVEN_PASSWORD })).status).toBe(
        200,
      );
      const browser = new Browser(server);
      expect((await envelope(await browser.login(uin, GIVEN_PASSWORD))).data).toMatchObject({
        must_change_password: true,
      });
      await expectPasswordChangeRequired(await browser.call('GET', '/v1/account/consents'));
    });

    it('not an admin resetting their own password: they chose it', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, ADMIN_PASSWORD, 'admin');
      const self = new Browser(server);
      await self.login(uin, ADMIN_PASSWORD);
      expect((await self.call('PATCH', `/v1/admin/users/${uin}`, { password: CHOSEN_PASSWORD })).status).toBe(
        200,
      );
      expect((await self.call('GET', '/v1/admin/users')).status).toBe(200);
    });

    it('the CSV import (POST /v1/admin/users/import)', async () => {
      const uin = freshUin();
      const imported = await admin.call('POST', '/v1/admin/users/import', {
        rows: [{ line: 2, uin: String(uin), password: GIVEN_PASSWORD, user_group: 'user' }],
      });
      expect((await envelope<{ results: unknown[] }>(imported)).data.results).toEqual([
        { line: 2, uin, status: 'created' },
      ]);
      const browser = new Browser(server);
      expect((await envelope(await browser.login(uin, GIVEN_PASSWORD))).data).toMatchObject({
        must_change_password: true,
      });
      await expectPasswordChangeRequired(await browser.call('GET', '/v1/account/consents'));
    });

    it('not the CSV import of a uin that exists: its password is left alone', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, CHOSEN_PASSWORD, 'member');
      const imported = await admin.call('POST', '/v1/admin/users/import', {
        rows: [{ line: 2, uin: String(uin), password: GIVEN_PASSWORD, user_group: 'user' }],
      });
      expect((await envelope<{ results: unknown[] }>(imported)).data.results).toEqual([
        { line: 2, uin, status: 'exists' },
      ]);
      const browser = new Browser(server);
      expect((await envelope(await browser.login(uin, CHOSEN_PASSWORD))).data).toEqual({
        uin,
        user_group: 'member',
      });
    });
  });
});
