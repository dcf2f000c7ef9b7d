/**
 * The red team's findings of issue 21 (docs/security.md#second-factors and the rows after it), tried as an
 * attacker would, over real HTTP on SQLite and PostgreSQL: changing a factor needs the password again or a
 * recent sign-in, a password reset removes the factors a stolen session added, admin calls go by the session's
 * `amr`, shared computers, flooding a locked account or the passwordless options, and the lows.
 */
import { statSync } from 'node:fs';
import { generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { sha256Hex } from '../../src/domain/crypto.js';
import { MAX_PASSWORDLESS_CHALLENGES, PASSWORDLESS_OPTIONS_PER_MINUTE } from '../../src/domain/passkeys.js';
import {
  ForbiddenDestinationError,
  allowedNetworks,
  guardedLookup,
  isAllowedDestination,
} from '../../src/oauth/delivery-address.js';
import { backupSqlite } from '../../src/ops/sqlite-maintenance.js';
import { EnvelopeCode } from '../../src/shared/envelope.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import { LogoutReceiver, deliveryAttempted } from '../helpers/logout-receiver.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { PASSWORD, REDIRECT_URI, freshUin, obtainCode, registerClient, tokensFor } from '../oauth/support.js';

interface Envelope<T = Record<string, unknown>> {
  code: number;
  msg: string;
  data: T;
}

/** 2030-01-01T00:00:00Z: the first second of a 30-second TOTP step. */
const STEP_START = 1_893_456_000_000;
const STEP_MS = 30_000;
const MINUTE = 60_000;

const totpAt = (secret: string, epochMs: number): string =>
  generateSync({ secret, epoch: Math.floor(epochMs / 1000) });

async function expectEnvelope<T = Record<string, unknown>>(
  response: Response,
  status: number,
  code: number,
): Promise<Envelope<T>> {
  const body = await json<Envelope<T>>(response);
  expect({ status: response.status, code: body.code, msg: body.msg }).toMatchObject({ status, code });
  return body;
}

describeOnDatabases(
  'issue 21: factors, admin sessions, shared computers, flooding',
  {
    transport: 'inject',
    manualClock: STEP_START + 10_000,
    env: { MFA_REQUIRED_GROUPS: 'admin' },
    client: true,
  },
  ({ server, clock, client }) => {
    /** A fresh user signed in with the password alone (no factor yet). */
    async function freshUser(
      group: 'admin' | 'member' = 'member',
    ): Promise<{ uin: number; browser: Browser }> {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, group);
      const browser = new Browser(server);
      expect((await browser.login(uin, PASSWORD)).status).toBe(200);
      return { uin, browser };
    }

    /** Sets up and confirms TOTP in `browser`'s session; answers the secret and the recovery codes. */
    async function enrolTotp(
      browser: Browser,
      body: Record<string, string> = {},
    ): Promise<{ secret: string; recoveryCodes: string[] }> {
      const setup = await expectEnvelope<{ secret: string }>(
        await browser.call('POST', '/v1/account/totp/setup', body),
        200,
        0,
      );
      const { secret } = setup.data;
      const confirm = await expectEnvelope<{ recovery_codes?: string[] }>(
        await browser.call('POST', '/v1/account/totp/confirm', { code: totpAt(secret, clock.now()) }),
        200,
        0,
      );
      // The next step starts in a fresh time step, so the confirming code is not a replay there.
      clock.advance(STEP_MS);
      return { secret, recoveryCodes: confirm.data.recovery_codes ?? [] };
    }

    /** Registers a passkey of `authenticator` in `browser`'s session; answers the raw POST. */
    async function addPasskey(
      browser: Browser,
      authenticator: SoftAuthenticator,
      body: Record<string, string> = {},
    ): Promise<Response> {
      const options = await browser.call('POST', '/v1/account/passkeys/options', body);
      if (options.status !== 200) return options;
      const { data } =
        await json<Envelope<{ challenge: string; user: { id: string }; rp: { id: string } }>>(options);
      return browser.call('POST', '/v1/account/passkeys', {
        name: 'Mallory',
        response: authenticator.register(data),
      });
    }

    /** Signs in with the password and the TOTP code: the sign-in that makes the account's factors its own. */
    async function signInWithTotp(uin: number, secret: string, shared = false): Promise<Browser> {
      const browser = new Browser(server);
      const login = await browser.call('POST', '/v1/account/login', { uin, password: PASSWORD, shared });
      expect(login.status).toBe(200);
      await expectEnvelope(
        await browser.call('POST', '/v1/account/login/second-factor', { totp: totpAt(secret, clock.now()) }),
        200,
        0,
      );
      clock.advance(STEP_MS);
      return browser;
    }

    /** A passwordless sign-in with `authenticator`; answers the raw response. */
    async function passkeyLogin(
      authenticator: SoftAuthenticator,
      extra: Record<string, unknown> = {},
      browser = new Browser(server),
    ): Promise<Response> {
      const options = await expectEnvelope<{ challenge: string }>(
        await browser.call('POST', '/v1/account/passkey-login/options', {}),
        200,
        0,
      );
      return browser.call('POST', '/v1/account/passkey-login', {
        response: authenticator.assert(options.data),
        ...extra,
      });
    }

    /** An admin whose session enrolled their first factor (so it counts as signed in with it). */
    async function mfaAdmin(): Promise<Browser> {
      const { browser } = await freshUser('admin');
      await enrolTotp(browser);
      await expectEnvelope(await browser.call('GET', '/v1/admin/users'), 200, 0);
      return browser;
    }

    describe('adding or removing a factor', () => {
      it('needs the password again once the sign-in is over 5 minutes old (403 code 4 without it)', async () => {
        const { browser } = await freshUser();
        const authenticator = new SoftAuthenticator(server.baseUrl);
        const added = await expectEnvelope<{ passkey: { id: string } }>(
          await addPasskey(browser, authenticator),
          200,
          0,
        );
        clock.advance(5 * MINUTE + 1_000);

        await expectEnvelope(await addPasskey(browser, new SoftAuthenticator(server.baseUrl)), 403, 4);
        const refused = await expectEnvelope(
          await browser.call('POST', '/v1/account/totp/setup', {}),
          403,
          4,
        );
        expect(refused.msg).toMatch(/password again/);
        await expectEnvelope(
          await browser.call('DELETE', `/v1/account/passkeys/${added.data.passkey.id}`),
          403,
          4,
        );
        await expectEnvelope(
          await browser.call('DELETE', `/v1/account/passkeys/${added.data.passkey.id}`, {
            password: 'wrong one',
          }),
          401,
          EnvelopeCode.InvalidRequest,
        );
        const list = await expectEnvelope<{ passkeys: unknown[] }>(
          await browser.call('GET', '/v1/account/passkeys'),
          200,
          0,
        );
        expect(list.data.passkeys).toHaveLength(1);

        // With the password typed again, each works.
        await expectEnvelope(
          await addPasskey(browser, new SoftAuthenticator(server.baseUrl), { password: PASSWORD }),
          200,
          0,
        );
        await enrolTotp(browser, { password: PASSWORD });
        await expectEnvelope(
          await browser.call('DELETE', `/v1/account/passkeys/${added.data.passkey.id}`, {
            password: PASSWORD,
          }),
          200,
          0,
        );
      });

      it('a passkey added with a stolen session does not survive an admin password reset and "sign out everywhere"', async () => {
        const { uin, browser: first } = await freshUser();
        const { secret } = await enrolTotp(first);
        // The victim signs in with password and code; the attacker copies that fresh session's cookie.
        const stolen = await signInWithTotp(uin, secret);
        const mallory = new SoftAuthenticator(server.baseUrl);
        await expectEnvelope(await addPasskey(stolen, mallory), 200, 0);
        clock.advance(MINUTE);

        const admin = await mfaAdmin();
        await expectEnvelope(
          await admin.call('PATCH', `/v1/admin/users/${uin}`, { password: 'a brand new pass phrase' }),
          200,
          0,
        );
        await expectEnvelope(await stolen.call('POST', '/v1/account/logout', { everywhere: true }), 200, 0);

        await expectEnvelope(await passkeyLogin(mallory), 401, EnvelopeCode.InvalidRequest);
        // The factor the owner had before their last sign-in with it stays.
        const factors = await server.ctx.secondFactors.factorsOf(uin);
        expect(factors).toEqual(['totp', 'recovery_code']);
      });

      it('a reset code removes them too', async () => {
        const { uin, browser: first } = await freshUser();
        const { secret } = await enrolTotp(first);
        const stolen = await signInWithTotp(uin, secret);
        const mallory = new SoftAuthenticator(server.baseUrl);
        await expectEnvelope(await addPasskey(stolen, mallory), 200, 0);

        const admin = await mfaAdmin();
        const issued = await expectEnvelope<{ code: string }>(
          await admin.call('POST', `/v1/admin/users/${uin}/reset-code`, {}),
          200,
          0,
        );
        await expectEnvelope(
          await new Browser(server).call('POST', '/v1/account/password-reset', {
            uin,
            code: issued.data.code,
            new_password: 'a brand new pass phrase',
          }),
          200,
          0,
        );
        await expectEnvelope(await passkeyLogin(mallory), 401, EnvelopeCode.InvalidRequest);
        expect(await server.ctx.secondFactors.factorsOf(uin)).toEqual(['totp', 'recovery_code']);
      });
    });

    describe('admin calls and the second factor of the session', () => {
      it('refuse a password-only session (403 code 8) after the account enrols a factor in another one', async () => {
        const { uin, browser: passwordOnly } = await freshUser('admin');
        const other = new Browser(server);
        expect((await other.login(uin, PASSWORD)).status).toBe(200);
        await enrolTotp(other);
        await expectEnvelope(
          await passwordOnly.call('GET', '/v1/admin/users'),
          403,
          EnvelopeCode.SecondFactorRequired,
        );
        // The session that enrolled the first factor proved it, and may.
        await expectEnvelope(await other.call('GET', '/v1/admin/users'), 200, 0);
      });
    });

    describe('shared computers', () => {
      it('prompt=none in a shared-computer session answers consent_required, never a silent code', async () => {
        const uin = freshUin();
        await server.ctx.users.create(uin, PASSWORD, 'member');
        const browser = new Browser(server);
        await expectEnvelope(
          await browser.call('POST', '/v1/account/login', { uin, password: PASSWORD, shared: true }),
          200,
          0,
        );
        // The user confirms the app with a click once…
        await obtainCode(browser, client);
        // …and an app asking silently gets no code.
        const query = new URLSearchParams({
          client_id: client.clientId,
          redirect_uri: REDIRECT_URI,
          prompt: 'none',
          state: 's',
        });
        const response = await browser.call('GET', `/v1/oauth2/authorize?${query.toString()}`);
        expect(response.status).toBe(302);
        const location = new URL(response.headers.get('location')!);
        expect(location.origin + location.pathname).toBe(REDIRECT_URI);
        expect(location.searchParams.get('error')).toBe('consent_required');
        expect(location.searchParams.has('code')).toBe(false);
      });

      it('a passkey sign-in takes "This is a shared computer": a browser-session cookie, a shared session', async () => {
        const { uin, browser } = await freshUser();
        const authenticator = new SoftAuthenticator(server.baseUrl);
        await expectEnvelope(await addPasskey(browser, authenticator), 200, 0);
        const shared = new Browser(server);
        const login = await passkeyLogin(authenticator, { shared: true }, shared);
        expect((await expectEnvelope(login, 200, 0)).data).toMatchObject({ uin });
        expect(login.headers.get('set-cookie') ?? '').not.toMatch(/Max-Age/i);
        const sessions = await expectEnvelope<{ sessions: { current: boolean; shared: boolean }[] }>(
          await shared.call('GET', '/v1/account/sessions'),
          200,
          0,
        );
        expect(sessions.data.sessions.find((session) => session.current)?.shared).toBe(true);
      });
    });

    describe('flooding', () => {
      it('writes one audit event per lock, however many attempts the lock refuses', async () => {
        const uin = freshUin();
        await server.ctx.users.create(uin, PASSWORD, 'member');
        const attacker = new Browser(server);
        for (let i = 0; i < 5; i++) await attacker.login(uin, 'wrong password');
        for (let i = 0; i < 20; i++) expect((await attacker.login(uin, 'wrong password')).status).toBe(429);
        const locked = () =>
          server.ctx.store.audit.list({ uin, actions: ['sign_in'], outcome: 'locked', limit: 100 });
        expect(await locked()).toHaveLength(1);
        // The next lock (after another failure) is one more event.
        clock.advance(31_000);
        expect((await attacker.login(uin, 'wrong password')).status).toBe(401);
        for (let i = 0; i < 10; i++) expect((await attacker.login(uin, 'wrong password')).status).toBe(429);
        expect(await locked()).toHaveLength(2);
      });

      it('limits POST /v1/account/passkey-login/options per address (429 with Retry-After)', async () => {
        clock.advance(MINUTE);
        const anonymous = new Browser(server);
        for (let i = 0; i < PASSWORDLESS_OPTIONS_PER_MINUTE; i++) {
          expect((await anonymous.call('POST', '/v1/account/passkey-login/options', {})).status).toBe(200);
        }
        const refused = await anonymous.call('POST', '/v1/account/passkey-login/options', {});
        await expectEnvelope(refused, 429, EnvelopeCode.Throttled);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        clock.advance(MINUTE);
        expect((await anonymous.call('POST', '/v1/account/passkey-login/options', {})).status).toBe(200);
      });

      it('stores no more passwordless challenges than its bound', async () => {
        clock.advance(MINUTE);
        const count = vi
          .spyOn(server.ctx.store.webAuthnChallenges, 'countLive')
          .mockResolvedValueOnce(MAX_PASSWORDLESS_CHALLENGES);
        const insert = vi.spyOn(server.ctx.store.webAuthnChallenges, 'insert');
        try {
          const anonymous = new Browser(server);
          await expectEnvelope(
            await anonymous.call('POST', '/v1/account/passkey-login/options', {}),
            429,
            EnvelopeCode.Throttled,
          );
          expect(insert).not.toHaveBeenCalled();
        } finally {
          count.mockRestore();
          insert.mockRestore();
        }
      });
    });

    describe('the lows', () => {
      it('the reset-code path refuses a password that contains the uin', async () => {
        const uin = freshUin();
        await server.ctx.users.create(uin, PASSWORD, 'member');
        const { code } = await server.ctx.resetCodes.issue(uin);
        const response = await new Browser(server).call('POST', '/v1/account/password-reset', {
          uin,
          code,
          new_password: `my number is ${uin} ok`,
        });
        const body = await expectEnvelope(response, 400, EnvelopeCode.InvalidRequest);
        expect(body.msg).toMatch(/uin/);
      });

      it('audits a wrong second-factor answer', async () => {
        const { uin, browser } = await freshUser();
        const { secret } = await enrolTotp(browser);
        const pending = new Browser(server);
        await pending.login(uin, PASSWORD);
        const wrong = totpAt(secret, clock.now()) === '000000' ? '111111' : '000000';
        await expectEnvelope(
          await pending.call('POST', '/v1/account/login/second-factor', { totp: wrong }),
          401,
          EnvelopeCode.InvalidRequest,
        );
        const failures = await server.ctx.store.audit.list({
          uin,
          actions: ['sign_in'],
          outcome: 'failure',
          limit: 10,
        });
        expect(failures.map((event) => event.detail)).toEqual([{ second_factor: 'totp' }]);
      });

      it('lets a second-factor user finish signing in at once after a lock: the right password releases the gate', async () => {
        const { uin, browser } = await freshUser();
        const { secret } = await enrolTotp(browser);
        const person = new Browser(server);
        for (let i = 0; i < 5; i++) await person.login(uin, 'wrong password');
        expect((await person.login(uin, PASSWORD)).status).toBe(429);
        clock.advance(31_000);
        const login = await expectEnvelope<{ second_factor?: string[] }>(
          await person.login(uin, PASSWORD),
          200,
          0,
        );
        expect(login.data.second_factor).toContain('totp');
        await expectEnvelope(
          await person.call('POST', '/v1/account/login/second-factor', { totp: totpAt(secret, clock.now()) }),
          200,
          0,
        );
      });

      it('stores recovery codes as an HMAC, not a bare SHA-256, and still accepts codes stored the old way', async () => {
        const { uin, browser } = await freshUser();
        const { recoveryCodes } = await enrolTotp(browser);
        const bare = sha256Hex(recoveryCodes[0]!.replace(/-/g, ''));
        expect(await server.ctx.store.secondFactors.useRecoveryCode(uin, [bare], clock.now())).toBe(false);

        // A code an earlier version stored as a bare SHA-256 signs in still.
        await server.ctx.store.secondFactors.replaceRecoveryCodes(
          uin,
          [sha256Hex('ABCDEFGHJK')],
          clock.now(),
        );
        const pending = new Browser(server);
        await pending.login(uin, PASSWORD);
        await expectEnvelope(
          await pending.call('POST', '/v1/account/login/second-factor', { recovery_code: 'abcde-fghjk' }),
          200,
          0,
        );
      });

      it('refuses a passkey sign-in of an expired account like a password sign-in', async () => {
        const { uin, browser } = await freshUser();
        const authenticator = new SoftAuthenticator(server.baseUrl);
        await expectEnvelope(await addPasskey(browser, authenticator), 200, 0);
        await server.ctx.store.users.update(uin, { expiresAt: clock.now() - 1 });
        await expectEnvelope(await passkeyLogin(authenticator), 401, EnvelopeCode.InvalidRequest);
        await expectEnvelope(
          await new Browser(server).login(uin, PASSWORD),
          401,
          EnvelopeCode.InvalidRequest,
        );
      });
    });
  },
);

describeOnDatabases(
  'issue 21: the last admin and back-channel destinations',
  { transport: 'inject', user: 'admin' },
  ({ server, user }) => {
    const admin = user.browser;

    it('the last admin cannot give their own account an end date, and an expired admin counts for none', async () => {
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
      await expectEnvelope(
        await admin.call('PATCH', `/v1/admin/users/${user.uin}`, { expires_at: tomorrow }),
        409,
        EnvelopeCode.Conflict,
      );
      const expired = freshUin();
      await server.ctx.users.create(expired, PASSWORD, 'admin', { expiresAt: Date.now() - 1_000 });
      await expectEnvelope(
        await admin.call('PATCH', `/v1/admin/users/${user.uin}`, { disabled: true }),
        409,
        EnvelopeCode.Conflict,
      );
      const me = await expectEnvelope<{ user_group: string }>(
        await admin.call('GET', '/v1/account/me'),
        200,
        0,
      );
      expect(me.data.user_group).toBe('admin');
    });

    it.each(['https://10.1.2.3/logout', 'https://169.254.169.254/latest', 'https://[fd00::1]/logout'])(
      'never delivers a back-channel logout to the private or link-local address %s',
      async (uri) => {
        const app = await registerClient(server, { backchannelLogoutUri: uri });
        const person = new Browser(server);
        const uin = freshUin();
        await server.ctx.users.create(uin, PASSWORD, 'member');
        expect((await person.login(uin, PASSWORD)).status).toBe(200);
        await tokensFor(server, person, app, { scope: 'openid', nonce: 'n' });
        await person.call('POST', '/v1/account/logout');
        const result = await deliveryAttempted(admin, app.clientId);
        expect(result).toBe('address not allowed');
      },
    );

    describe('with a receiver on this machine', () => {
      let receiver: LogoutReceiver;
      beforeAll(async () => {
        receiver = await new LogoutReceiver().start();
      });
      afterAll(async () => {
        await receiver?.stop();
      });

      it('still delivers to loopback while BASE_URL is loopback', async () => {
        const app = await registerClient(server, { backchannelLogoutUri: receiver.uri });
        const person = new Browser(server);
        const uin = freshUin();
        await server.ctx.users.create(uin, PASSWORD, 'member');
        expect((await person.login(uin, PASSWORD)).status).toBe(200);
        await tokensFor(server, person, app, { scope: 'openid', nonce: 'n' });
        const before = receiver.received.length;
        await person.call('POST', '/v1/account/logout');
        await receiver.waitFor(before + 1);
      });
    });
  },
);

describe('back-channel logout destinations, checked on the resolved address', () => {
  it('refuses a name that resolves to loopback unless BASE_URL is loopback', async () => {
    const resolve = (allowLoopback: boolean) =>
      new Promise<unknown>((done) => {
        guardedLookup(allowLoopback)('localhost', { all: true }, (error, addresses) =>
          done(error ?? addresses),
        );
      });
    expect(await resolve(false)).toBeInstanceOf(ForbiddenDestinationError);
    expect(await resolve(true)).toEqual(
      expect.arrayContaining([expect.objectContaining({ address: expect.any(String) })]),
    );
  });

  it.each([
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['fe80::1', false],
    ['fd12:3456::1', false],
    ['::ffff:10.0.0.1', false],
    ['127.0.0.1', false],
    ['::1', false],
    ['93.184.215.14', true],
    ['2606:4700::1111', true],
  ])('%s is allowed: %s (loopback not allowed)', (address, allowed) => {
    expect(isAllowedDestination(address, false)).toBe(allowed);
  });

  it("delivers into the school's own networks only where LOGOUT_ALLOWED_NETWORKS names them", async () => {
    const school = allowedNetworks(
      loadConfig({ LOGOUT_ALLOWED_NETWORKS: '10.20.0.0/16, 192.168.1.10, fd00:5::/64' })
        .logoutAllowedNetworks,
    );
    expect(isAllowedDestination('10.20.30.40', false, school)).toBe(true);
    expect(isAllowedDestination('::ffff:10.20.30.40', false, school)).toBe(true);
    expect(isAllowedDestination('192.168.1.10', false, school)).toBe(true);
    expect(isAllowedDestination('fd00:5::1', false, school)).toBe(true);
    // The rest of the school's network, and the cloud's metadata service, stay out.
    expect(isAllowedDestination('10.21.0.1', false, school)).toBe(false);
    expect(isAllowedDestination('192.168.1.11', false, school)).toBe(false);
    expect(isAllowedDestination('169.254.169.254', false, school)).toBe(false);
    expect(isAllowedDestination('93.184.215.14', false, school)).toBe(true);
    const resolved = await new Promise<unknown>((done) => {
      guardedLookup(false, allowedNetworks(['127.0.0.0/8', '::1']))(
        'localhost',
        { all: true },
        (error, addresses) => done(error ?? addresses),
      );
    });
    expect(resolved).toEqual(
      expect.arrayContaining([expect.objectContaining({ address: expect.any(String) })]),
    );
    expect(() => loadConfig({ LOGOUT_ALLOWED_NETWORKS: '10.0.0.0/33' })).toThrow(/LOGOUT_ALLOWED_NETWORKS/);
    expect(() => loadConfig({ LOGOUT_ALLOWED_NETWORKS: 'intranet.school' })).toThrow(
      /LOGOUT_ALLOWED_NETWORKS/,
    );
    expect(loadConfig({}).logoutAllowedNetworks).toEqual([]);
  });
});

describe('database files', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ transport: 'inject', database: 'sqlite' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('creates the SQLite database, its WAL and shared-memory files, and backups readable by the owner only', async () => {
    await server.ctx.users.create(freshUin(), PASSWORD, 'member');
    const file = server.databaseUrl.replace(/^sqlite:/, '');
    for (const path of [file, `${file}-wal`, `${file}-shm`]) {
      expect({ path, mode: (statSync(path).mode & 0o777).toString(8) }).toEqual({ path, mode: '600' });
    }
    const backup = `${file}.backup`;
    backupSqlite(file, backup);
    expect((statSync(backup).mode & 0o777).toString(8)).toBe('600');
  });
});
