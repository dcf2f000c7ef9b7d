/**
 * The browser session API, `/v1/account/…` (docs/interface.md#browser-session-api), over real HTTP on
 * SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/domain/crypto.js';
import type { UserGroup } from '../../src/storage/store.js';
import { type DatabaseSuiteOptions, describeOnDatabases } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import { type TestServer } from '../helpers/server.js';

interface Envelope<T = Record<string, unknown>> {
  code: number;
  msg: string;
  data: T;
}

const PASSWORD = 'correct horse battery staple';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const QQ_UIN = 1010553892;

async function envelope<T = Record<string, unknown>>(response: Response): Promise<Envelope<T>> {
  return json<Envelope<T>>(response);
}

/** Expects an error envelope with this status, code and `data` (`{}` unless given); answers its message. */
async function expectError(
  response: Response,
  status: number,
  code: number,
  data: Record<string, unknown> = {},
): Promise<string> {
  const body = await envelope(response);
  expect({ status: response.status, code: body.code, data: body.data }).toEqual({ status, code, data });
  expect(body.msg).not.toBe('');
  return body.msg;
}

/** A request with no cookie jar, so a test can replay an old cookie by hand. */
function raw(
  server: TestServer,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
) {
  return server.fetch(path, {
    method,
    headers: { origin: server.baseUrl, ...headers },
    ...(body !== undefined ? { body } : {}),
  });
}

describeOnDatabases('account API', { transport: 'inject' }, ({ server }) => {
  let nextUin = 30_000;
  const freshUin = (): number => nextUin++;

  async function createUser(
    group: UserGroup = 'member',
    uin = freshUin(),
    password = PASSWORD,
  ): Promise<number> {
    expect(await server.ctx.users.create(uin, password, group)).toBeDefined();
    return uin;
  }

  async function signedIn(uin: number, password = PASSWORD): Promise<Browser> {
    const browser = new Browser(server);
    expect((await browser.login(uin, password)).status).toBe(200);
    return browser;
  }

  describe('POST /v1/account/login', () => {
    it('signs in with the right uin and password and answers the uin and group', async () => {
      const uin = await createUser('admin', QQ_UIN);
      const browser = new Browser(server);
      const response = await browser.login(uin, PASSWORD);
      expect(response.status).toBe(200);
      expect(await envelope(response)).toEqual({
        code: 0,
        msg: 'ok',
        data: { uin: QQ_UIN, user_group: 'admin' },
      });
      expect(browser.sessionCookie).toMatch(/^campus_sso_session=[A-Za-z0-9_-]{43}$/);
    });

    it('sets the session cookie HttpOnly, SameSite=Lax, Path=/ and not Secure over http', async () => {
      const uin = await createUser();
      const response = await new Browser(server).login(uin, PASSWORD);
      const cookie = response.headers.get('set-cookie') ?? '';
      const attributes = cookie.split(';').map((a) => a.trim().toLowerCase());
      expect(attributes[0]).toMatch(/^campus_sso_session=.+/);
      expect(attributes).toContain('httponly');
      expect(attributes).toContain('samesite=lax');
      expect(attributes).toContain('path=/');
      expect(attributes).not.toContain('secure');
    });

    it('accepts the uin as a string of digits too', async () => {
      const uin = await createUser();
      const response = await new Browser(server).call('POST', '/v1/account/login', {
        uin: String(uin),
        password: PASSWORD,
      });
      expect(response.status).toBe(200);
      expect((await envelope(response)).data).toEqual({ uin, user_group: 'member' });
    });

    it('answers a wrong password and an unknown uin with the identical 401 code 1', async () => {
      const uin = await createUser();
      const wrongPassword = await new Browser(server).login(uin, 'not the password');
      const unknownUin = await new Browser(server).login(987_654_321, 'not the password');
      expect(wrongPassword.status).toBe(401);
      expect(unknownUin.status).toBe(401);
      const a = await wrongPassword.text();
      const b = await unknownUin.text();
      expect(a).toBe(b);
      expect(JSON.parse(a)).toMatchObject({ code: 1, data: {} });
      expect(wrongPassword.headers.get('set-cookie')).toBeNull();
      expect(unknownUin.headers.get('set-cookie')).toBeNull();
    });

    it('after 5 failures answers the 6th attempt 429 code 7 with Retry-After > 0, even with the right password', async () => {
      const uin = await createUser();
      const browser = new Browser(server);
      // docs/interface.md#browser-session-api: the fourth failure warns, the fifth says it locked.
      const warnings = [{}, {}, {}, { next_failure_locks_for: 30 }, { locked_for: 30 }];
      for (const [i, data] of warnings.entries()) {
        await expectError(await browser.login(uin, `wrong password ${i}`), 401, 1, data);
      }
      const right = await browser.login(uin, PASSWORD);
      await expectError(right, 429, 7);
      expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(right.headers.get('set-cookie')).toBeNull();
      expect(browser.sessionCookie).toBeUndefined();
    });

    it('throttles one account without locking out the others', async () => {
      const locked = await createUser();
      const other = await createUser();
      const browser = new Browser(server);
      for (let i = 0; i < 7; i++) await browser.login(locked, 'wrong password');
      expect((await browser.login(locked, PASSWORD)).status).toBe(429);
      expect((await new Browser(server).login(other, PASSWORD)).status).toBe(200);
    });

    it('refuses a disabled user with the same 401 code 1 as a wrong password', async () => {
      const uin = await createUser();
      await server.ctx.users.setDisabled(uin, true);
      const response = await new Browser(server).login(uin, PASSWORD);
      await expectError(response, 401, 1);
      expect(response.headers.get('set-cookie')).toBeNull();
    });

    it('refuses a cross-origin sign-in with 403 code 4 and creates no session', async () => {
      const uin = await createUser();
      const browser = new Browser(server);
      const response = await browser.call(
        'POST',
        '/v1/account/login',
        { uin, password: PASSWORD },
        { origin: 'https://evil.example' },
      );
      await expectError(response, 403, 4);
      expect(response.headers.get('set-cookie')).toBeNull();
    });

    it('refuses a sign-in the browser marks Sec-Fetch-Site: cross-site with 403 code 4', async () => {
      const uin = await createUser();
      const response = await new Browser(server).call(
        'POST',
        '/v1/account/login',
        { uin, password: PASSWORD },
        { 'sec-fetch-site': 'cross-site' },
      );
      await expectError(response, 403, 4);
      expect(response.headers.get('set-cookie')).toBeNull();
    });

    it.each([
      ['text/plain', (uin: number) => JSON.stringify({ uin, password: PASSWORD })],
      [
        'application/x-www-form-urlencoded',
        (uin: number) => `uin=${uin}&password=${encodeURIComponent(PASSWORD)}`,
      ],
      [
        'multipart/form-data; boundary=x',
        (uin: number) => `--x\r\nContent-Disposition: form-data; name="uin"\r\n\r\n${uin}\r\n--x--\r\n`,
      ],
    ])(
      'refuses a %s body (what a cross-site form can send) with 403 code 4 and creates no session',
      async (type, body) => {
        const uin = await createUser();
        const response = await raw(server, 'POST', '/v1/account/login', { 'content-type': type }, body(uin));
        await expectError(response, 403, 4);
        expect(response.headers.get('set-cookie')).toBeNull();
      },
    );
  });

  describe('GET /v1/account/me', () => {
    it('answers the signed-in user with uin, group and created_at (ISO 8601 UTC with milliseconds)', async () => {
      const uin = await createUser('member', 4_294_967_296 + freshUin());
      const browser = await signedIn(uin);
      const response = await browser.call('GET', '/v1/account/me');
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const body = await envelope<{ uin: number; user_group: string; created_at: string }>(response);
      expect(body).toMatchObject({ code: 0, msg: 'ok', data: { uin, user_group: 'member' } });
      // Exactly these three (docs/interface.md#browser-session-api): `roles` only for a role holder.
      expect(Object.keys(body.data).sort()).toEqual(['created_at', 'uin', 'user_group']);
      expect(body.data.created_at).toMatch(ISO_MS);
      const stored = await server.ctx.store.users.find(uin);
      expect(body.data.created_at).toBe(new Date(stored?.createdAt ?? 0).toISOString());
    });

    it('answers 401 code -1 without a cookie', async () => {
      await expectError(await raw(server, 'GET', '/v1/account/me'), 401, -1);
    });

    it('answers 401 code -1 to an unknown session cookie and clears it', async () => {
      const response = await raw(server, 'GET', '/v1/account/me', { cookie: 'campus_sso_session=forged' });
      await expectError(response, 401, -1);
      expect(response.headers.get('set-cookie')).toMatch(/^campus_sso_session=;.*Max-Age=0/);
    });
  });

  describe('POST /v1/account/logout', () => {
    it('ends the session on the server: the old cookie no longer signs in', async () => {
      const uin = await createUser();
      const browser = await signedIn(uin);
      const oldCookie = browser.sessionCookie ?? '';
      expect((await raw(server, 'GET', '/v1/account/me', { cookie: oldCookie })).status).toBe(200);

      const response = await browser.call('POST', '/v1/account/logout');
      expect(response.status).toBe(200);
      expect(await envelope(response)).toEqual({ code: 0, msg: 'ok', data: {} });
      expect(response.headers.get('set-cookie')).toMatch(/^campus_sso_session=;.*Max-Age=0/);

      await expectError(await raw(server, 'GET', '/v1/account/me', { cookie: oldCookie }), 401, -1);
    });

    it('answers ok when not signed in', async () => {
      const response = await raw(server, 'POST', '/v1/account/logout');
      expect(response.status).toBe(200);
      expect((await envelope(response)).code).toBe(0);
    });

    it('refuses a cross-origin logout with 403 code 4 and keeps the session', async () => {
      const browser = await signedIn(await createUser());
      const cookie = browser.sessionCookie ?? '';
      await expectError(
        await raw(server, 'POST', '/v1/account/logout', { cookie, origin: 'https://evil.example' }),
        403,
        4,
      );
      expect((await raw(server, 'GET', '/v1/account/me', { cookie })).status).toBe(200);
    });

    it('starts a fresh session at each sign-in and ends the one the browser had', async () => {
      const uin = await createUser();
      const browser = await signedIn(uin);
      const first = browser.sessionCookie ?? '';
      expect((await browser.login(uin, PASSWORD)).status).toBe(200);
      expect(browser.sessionCookie).not.toBe(first);
      await expectError(await raw(server, 'GET', '/v1/account/me', { cookie: first }), 401, -1);
      expect((await browser.call('GET', '/v1/account/me')).status).toBe(200);
    });
  });

  describe('POST /v1/account/password', () => {
    it('answers 401 code -1 when not signed in', async () => {
      const response = await new Browser(server).call('POST', '/v1/account/password', {
        current_password: PASSWORD,
        new_password: 'a brand new password',
      });
      await expectError(response, 401, -1);
    });

    it('answers 401 code 1 when the current password is wrong, and keeps the password', async () => {
      const uin = await createUser();
      const browser = await signedIn(uin);
      const response = await browser.call('POST', '/v1/account/password', {
        current_password: 'not my password',
        new_password: 'a brand new password',
      });
      await expectError(response, 401, 1);
      expect((await new Browser(server).login(uin, PASSWORD)).status).toBe(200);
    });

    it('answers 400 code 1 naming new_password when the new password is shorter than 8 characters', async () => {
      const uin = await createUser();
      const browser = await signedIn(uin);
      const response = await browser.call('POST', '/v1/account/password', {
        current_password: PASSWORD,
        new_password: 'short',
      });
      expect(await expectError(response, 400, 1, { reason: 'too_short' })).toMatch(/new_password/);
      expect((await new Browser(server).login(uin, PASSWORD)).status).toBe(200);
    });

    it('changes the password: the old one stops working and the new one signs in', async () => {
      const uin = await createUser();
      const browser = await signedIn(uin);
      const response = await browser.call('POST', '/v1/account/password', {
        current_password: PASSWORD,
        new_password: 'a brand new password',
      });
      expect(response.status).toBe(200);
      expect(await envelope(response)).toEqual({ code: 0, msg: 'ok', data: {} });
      await expectError(await new Browser(server).login(uin, PASSWORD), 401, 1);
      expect((await new Browser(server).login(uin, 'a brand new password')).status).toBe(200);
    });
  });

  describe('GET /v1/account/consents', () => {
    it('answers 401 code -1 when not signed in', async () => {
      await expectError(await raw(server, 'GET', '/v1/account/consents'), 401, -1);
    });

    it("lists the signed-in user's authorized apps with name, emoji, scope and granted_at", async () => {
      const uin = await createUser();
      const other = await createUser();
      const { app: library } = await server.ctx.apps.create({
        name: 'Library',
        emoji: '📚',
        redirectUris: ['https://library.example.edu/cb'],
      });
      const { app: club } = await server.ctx.apps.create({
        name: 'Coding Club',
        emoji: '👩‍💻',
        redirectUris: ['https://club.example.edu/cb'],
      });
      const grantedAt = Date.UTC(2025, 8, 1, 8, 0, 0, 5);
      await server.ctx.store.consents.upsert({ uin, clientId: library.clientId, scope: 'openid', grantedAt });
      await server.ctx.store.consents.upsert({
        uin,
        clientId: club.clientId,
        scope: null,
        grantedAt: grantedAt + 1,
      });
      await server.ctx.store.consents.upsert({
        uin: other,
        clientId: library.clientId,
        scope: null,
        grantedAt,
      });

      const response = await (await signedIn(uin)).call('GET', '/v1/account/consents');
      expect(response.status).toBe(200);
      expect(await envelope(response)).toEqual({
        code: 0,
        msg: 'ok',
        data: {
          consents: [
            {
              client_id: club.clientId,
              name: 'Coding Club',
              emoji: '👩‍💻',
              scope: null,
              granted_at: new Date(grantedAt + 1).toISOString(),
            },
            {
              client_id: library.clientId,
              name: 'Library',
              emoji: '📚',
              scope: 'openid',
              granted_at: '2025-09-01T08:00:00.005Z',
            },
          ],
        },
      });
    });

    it('answers an empty list to a user who authorized nothing', async () => {
      const response = await (await signedIn(await createUser())).call('GET', '/v1/account/consents');
      expect((await envelope(response)).data).toEqual({ consents: [] });
    });
  });

  describe('DELETE /v1/account/consents/:client_id', () => {
    async function authorized(
      uin: number,
    ): Promise<{ clientId: string; accessHash: string; refreshHash: string }> {
      const { app } = await server.ctx.apps.create({
        name: 'Library',
        emoji: '📚',
        redirectUris: ['https://library.example.edu/cb'],
      });
      const now = Date.now();
      await server.ctx.store.consents.upsert({
        uin,
        clientId: app.clientId,
        scope: 'openid',
        grantedAt: now,
      });
      const codeHash = sha256Hex(`code-${uin}-${app.clientId}`);
      await server.ctx.store.codes.insert({
        codeHash,
        clientId: app.clientId,
        uin,
        redirectUri: 'https://library.example.edu/cb',
        scope: 'openid offline_access',
        nonce: null,
        codeChallenge: null,
        codeChallengeMethod: null,
        authTime: now,
        createdAt: now,
        expiresAt: now + 600_000,
        usedAt: null,
        amr: ['pwd'],
        sid: null,
      });
      const accessHash = sha256Hex(`access-${uin}-${app.clientId}`);
      const refreshHash = sha256Hex(`refresh-${uin}-${app.clientId}`);
      const redeemed = await server.ctx.store.tokens.redeemCode(
        codeHash,
        now,
        {
          tokenHash: accessHash,
          clientId: app.clientId,
          uin,
          scope: 'openid offline_access',
          codeHash,
          familyId: 'family-' + accessHash,
          createdAt: now,
          expiresAt: now + 7_200_000,
          revoked: false,
        },
        {
          tokenHash: refreshHash,
          familyId: 'family-' + accessHash,
          clientId: app.clientId,
          uin,
          scope: 'openid offline_access',
          authTime: now,
          codeHash,
          createdAt: now,
          expiresAt: now + 86_400_000,
          rotatedAt: null,
          revoked: false,
          amr: ['pwd'],
          sid: null,
        },
      );
      expect(redeemed).toBe(true);
      expect(await server.ctx.store.tokens.findActiveOwner(accessHash, Date.now())).toBeDefined();
      return { clientId: app.clientId, accessHash, refreshHash };
    }

    it('withdraws the consent and revokes every token of that app for this user', async () => {
      const uin = await createUser();
      const { clientId, accessHash, refreshHash } = await authorized(uin);
      const browser = await signedIn(uin);
      const response = await browser.call('DELETE', `/v1/account/consents/${clientId}`);
      expect(response.status).toBe(200);
      expect(await envelope(response)).toEqual({ code: 0, msg: 'ok', data: {} });
      expect(await server.ctx.store.consents.find(uin, clientId)).toBeUndefined();
      expect(await server.ctx.store.tokens.findActiveOwner(accessHash, Date.now())).toBeUndefined();
      expect((await server.ctx.store.tokens.findRefreshToken(refreshHash))?.revoked).toBe(true);
      const list = await browser.call('GET', '/v1/account/consents');
      expect((await envelope(list)).data).toEqual({ consents: [] });
    });

    it("leaves other users' consents and tokens for the same app alone", async () => {
      const uin = await createUser();
      const other = await createUser();
      const mine = await authorized(uin);
      await server.ctx.store.consents.upsert({
        uin: other,
        clientId: mine.clientId,
        scope: null,
        grantedAt: 1,
      });
      await (await signedIn(uin)).call('DELETE', `/v1/account/consents/${mine.clientId}`);
      expect(await server.ctx.store.consents.find(other, mine.clientId)).toBeDefined();
    });

    it('answers 404 code 5 for an app the user never authorized', async () => {
      const browser = await signedIn(await createUser());
      await expectError(await browser.call('DELETE', '/v1/account/consents/NeverAuthorized1'), 404, 5);
    });

    it('answers 400 code 1 for a malformed client_id', async () => {
      const browser = await signedIn(await createUser());
      await expectError(
        await browser.call('DELETE', `/v1/account/consents/${encodeURIComponent('bad id!')}`),
        400,
        1,
      );
    });

    it('answers 401 code -1 when not signed in', async () => {
      await expectError(await raw(server, 'DELETE', '/v1/account/consents/AnyClient123456'), 401, -1);
    });

    it('refuses a cross-origin withdrawal with 403 code 4 and keeps the consent', async () => {
      const uin = await createUser();
      const { clientId } = await authorized(uin);
      const browser = await signedIn(uin);
      const response = await browser.call('DELETE', `/v1/account/consents/${clientId}`, undefined, {
        origin: 'https://evil.example',
      });
      await expectError(response, 403, 4);
      expect(await server.ctx.store.consents.find(uin, clientId)).toBeDefined();
    });
  });

  describe('a disabled user', () => {
    it('cannot sign in, and the session they had stops working (disabled through the user service)', async () => {
      const uin = await createUser();
      const browser = await signedIn(uin);
      await server.ctx.users.setDisabled(uin, true);
      await expectError(await browser.call('GET', '/v1/account/me'), 401, -1);
      await expectError(await new Browser(server).login(uin, PASSWORD), 401, 1);
    });

    it('loses their live session even when only the stored flag changes', async () => {
      const uin = await createUser();
      const browser = await signedIn(uin);
      const cookie = browser.sessionCookie ?? '';
      await server.ctx.store.users.update(uin, { disabled: true });
      await expectError(await raw(server, 'GET', '/v1/account/me', { cookie }), 401, -1);
      await server.ctx.store.users.update(uin, { disabled: false });
      expect((await raw(server, 'GET', '/v1/account/me', { cookie })).status).toBe(200);
    });
  });
});

const HTTPS: DatabaseSuiteOptions = { transport: 'inject', env: { BASE_URL: 'https://sso.example.edu' } };

describeOnDatabases('account API under an https BASE_URL', HTTPS, ({ server }) => {
  it('marks the session cookie Secure (with HttpOnly, SameSite=Lax, Path=/)', async () => {
    await server.ctx.users.create(10001, PASSWORD, 'user');
    const response = await new Browser(server).call(
      'POST',
      '/v1/account/login',
      { uin: 10001, password: PASSWORD },
      { origin: 'https://sso.example.edu' },
    );
    expect(response.status).toBe(200);
    const attributes = (response.headers.get('set-cookie') ?? '')
      .split(';')
      .map((a) => a.trim().toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(['secure', 'httponly', 'samesite=lax', 'path=/']));
  });

  it('accepts the configured public origin and refuses another one', async () => {
    await server.ctx.users.create(10002, PASSWORD, 'user');
    const body = { uin: 10002, password: PASSWORD };
    const evil = await new Browser(server).call('POST', '/v1/account/login', body, {
      origin: 'https://evil.example',
    });
    await expectError(evil, 403, 4);
    const lookalike = await new Browser(server).call('POST', '/v1/account/login', body, {
      origin: 'https://sso.example.edu.evil.example',
    });
    await expectError(lookalike, 403, 4);
  });
});
