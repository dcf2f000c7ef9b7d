/**
 * Second factors (docs/interface.md#second-factor): TOTP (RFC 6238) with a clock the test controls,
 * recovery codes, passkeys through a software authenticator, the pending sign-in, MFA_REQUIRED_GROUPS, the
 * admin's removal of a user's factors, and `amr` in the id_token (RFC 8176). On SQLite and PostgreSQL.
 */
import { decodeJwt } from 'jose';
import { generateSync } from 'otplib';
import { describe, expect, it } from 'vitest';
import { EnvelopeCode } from '../../src/shared/envelope.js';
import { type DatabaseSuiteOptions, describeOnDatabases } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import { startTestServer } from '../helpers/server.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { PASSWORD, REDIRECT_URI, exchangeCode, freshUin, obtainCode } from '../oauth/support.js';

interface Envelope<T = Record<string, unknown>> {
  code: number;
  msg: string;
  data: T;
}

/** 2030-01-01T00:00:00Z: the first second of a 30-second TOTP step. */
const STEP_START = 1_893_456_000_000;
const STEP_MS = 30_000;

/** The code an authenticator app shows at `epochMs`. */
function totpAt(secret: string, epochMs: number): string {
  return generateSync({ secret, epoch: Math.floor(epochMs / 1000) });
}

async function envelope<T = Record<string, unknown>>(response: Response): Promise<Envelope<T>> {
  return json<Envelope<T>>(response);
}

async function expectEnvelope(response: Response, status: number, code: number): Promise<Envelope> {
  const body = await envelope(response);
  expect({ status: response.status, code: body.code, msg: body.msg }).toMatchObject({ status, code });
  return body;
}

const SUITE: DatabaseSuiteOptions = {
  transport: 'inject',
  // A clock that stands still until the test moves it.
  manualClock: STEP_START + 10_000,
  env: { MFA_REQUIRED_GROUPS: 'admin' },
  client: true,
};

describeOnDatabases('second factors', SUITE, ({ database, server, clock, client }) => {
  /** A fresh user signed in with the password alone (no factor yet). */
  async function freshUser(group: 'admin' | 'member' = 'member'): Promise<{ uin: number; browser: Browser }> {
    const uin = freshUin();
    await server.ctx.users.create(uin, PASSWORD, group);
    const browser = new Browser(server);
    expect((await browser.login(uin, PASSWORD)).status).toBe(200);
    return { uin, browser };
  }

  /** Sets up and confirms TOTP at the clock's time; answers the secret and the recovery codes. */
  async function enrolTotp(browser: Browser): Promise<{ secret: string; recoveryCodes: string[] }> {
    const setup = await envelope<{ secret: string; otpauth_uri: string }>(
      await browser.call('POST', '/v1/account/totp/setup', {}),
    );
    const { secret } = setup.data;
    const confirm = await browser.call('POST', '/v1/account/totp/confirm', {
      code: totpAt(secret, clock.now()),
    });
    const body = await envelope<{ recovery_codes?: string[] }>(confirm);
    expect(confirm.status).toBe(200);
    // The next test step starts in a fresh time step, so the confirming code is not a replay there.
    clock.advance(STEP_MS);
    return { secret, recoveryCodes: body.data.recovery_codes ?? [] };
  }

  /** A user with TOTP, and a browser whose password step is done (the sign-in pending). */
  async function pendingTotpUser(group: 'admin' | 'member' = 'member') {
    const { uin, browser } = await freshUser(group);
    const { secret, recoveryCodes } = await enrolTotp(browser);
    const pending = new Browser(server);
    const login = await pending.login(uin, PASSWORD);
    return { uin, secret, recoveryCodes, pending, login };
  }

  describe('POST /v1/account/totp/setup', () => {
    it('answers a base32 secret and an otpauth URI, and stores the secret sealed', async () => {
      const { uin, browser } = await freshUser();
      const response = await browser.call('POST', '/v1/account/totp/setup', {});
      const body = await envelope<{ secret: string; otpauth_uri: string }>(response);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(body.data.secret).toMatch(/^[A-Z2-7]{32}$/);
      const uri = new URL(body.data.otpauth_uri);
      expect(uri.protocol).toBe('otpauth:');
      expect(uri.searchParams.get('secret')).toBe(body.data.secret);
      const stored = await server.ctx.store.secondFactors.findTotp(uin);
      expect(stored?.sealedSecret).toMatch(/^enc:v1:/);
      expect(stored?.sealedSecret).not.toContain(body.data.secret);
      expect(stored?.confirmedAt).toBeNull();
    });

    it('refuses a second set-up while one is confirmed (409)', async () => {
      const { browser } = await freshUser();
      await enrolTotp(browser);
      await expectEnvelope(
        await browser.call('POST', '/v1/account/totp/setup', {}),
        409,
        EnvelopeCode.Conflict,
      );
    });

    it('needs a signed-in user', async () => {
      const anonymous = new Browser(server);
      await expectEnvelope(
        await anonymous.call('POST', '/v1/account/totp/setup', {}),
        401,
        EnvelopeCode.NotSignedIn,
      );
    });
  });

  describe('POST /v1/account/totp/confirm', () => {
    it('confirms with the current code and answers 10 recovery codes for the first factor', async () => {
      const { browser } = await freshUser();
      const { recoveryCodes } = await enrolTotp(browser);
      expect(recoveryCodes).toHaveLength(10);
      expect(new Set(recoveryCodes).size).toBe(10);
      for (const code of recoveryCodes) expect(code).toMatch(/^[A-Z2-7]{5}-[A-Z2-7]{5}$/);
    });

    it('refuses a wrong code with 400 and leaves the secret unconfirmed', async () => {
      const { uin, browser } = await freshUser();
      const setup = await envelope<{ secret: string }>(
        await browser.call('POST', '/v1/account/totp/setup', {}),
      );
      const wrong = totpAt(setup.data.secret, clock.now() + 10 * STEP_MS);
      await expectEnvelope(
        await browser.call('POST', '/v1/account/totp/confirm', { code: wrong }),
        400,
        EnvelopeCode.InvalidRequest,
      );
      expect((await server.ctx.store.secondFactors.findTotp(uin))?.confirmedAt).toBeNull();
    });

    it('answers no recovery codes when a passkey was the first factor', async () => {
      const { browser } = await freshUser();
      const authenticator = new SoftAuthenticator(server.baseUrl);
      await enrolPasskey(browser, authenticator);
      const setup = await envelope<{ secret: string }>(
        await browser.call('POST', '/v1/account/totp/setup', {}),
      );
      const confirm = await browser.call('POST', '/v1/account/totp/confirm', {
        code: totpAt(setup.data.secret, clock.now()),
      });
      expect((await expectEnvelope(confirm, 200, 0)).data).toEqual({});
      clock.advance(STEP_MS);
    });

    it('refuses a malformed code with 400', async () => {
      const { browser } = await freshUser();
      for (const code of ['12345', '1234567', 'abcdef', 123456]) {
        await expectEnvelope(
          await browser.call('POST', '/v1/account/totp/confirm', { code }),
          400,
          EnvelopeCode.InvalidRequest,
        );
      }
    });
  });

  describe('POST /v1/account/login with a second factor', () => {
    it('answers the factors the user has, and a pending sign-in', async () => {
      const { uin, login } = await pendingTotpUser();
      const body = await expectEnvelope(login, 200, 0);
      expect(body.data).toEqual({
        uin,
        user_group: 'member',
        second_factor: ['totp', 'recovery_code'],
      });
    });

    it('the pending sign-in cannot use /v1/account/me (401 code -1)', async () => {
      const { pending } = await pendingTotpUser();
      await expectEnvelope(await pending.call('GET', '/v1/account/me'), 401, EnvelopeCode.NotSignedIn);
    });

    it('the pending sign-in cannot authorize an app (401 code -1)', async () => {
      const { pending } = await pendingTotpUser();
      const response = await pending.call('POST', '/v1/oauth2/authorize', {
        client_id: client.clientId,
        redirect_uri: REDIRECT_URI,
        decision: 'allow',
      });
      await expectEnvelope(response, 401, EnvelopeCode.NotSignedIn);
    });

    it('the pending sign-in cannot call the admin API (401 code -1)', async () => {
      const { pending } = await pendingTotpUser('admin');
      await expectEnvelope(await pending.call('GET', '/v1/admin/apps'), 401, EnvelopeCode.NotSignedIn);
    });

    it('the pending sign-in cannot list consents or change the password', async () => {
      const { pending } = await pendingTotpUser();
      await expectEnvelope(await pending.call('GET', '/v1/account/consents'), 401, EnvelopeCode.NotSignedIn);
      await expectEnvelope(
        await pending.call('POST', '/v1/account/password', {
          current_password: PASSWORD,
          new_password: 'another long password',
        }),
        401,
        EnvelopeCode.NotSignedIn,
      );
    });
  });

  describe('POST /v1/account/login/second-factor', () => {
    it('completes the sign-in with the current TOTP code: /me then answers', async () => {
      const { uin, secret, pending } = await pendingTotpUser();
      const response = await pending.call('POST', '/v1/account/login/second-factor', {
        totp: totpAt(secret, clock.now()),
      });
      expect((await expectEnvelope(response, 200, 0)).data).toEqual({ uin, user_group: 'member' });
      const me = await envelope<{ uin: number }>(await pending.call('GET', '/v1/account/me'));
      expect(me.data.uin).toBe(uin);
    });

    it('keeps "This is a shared computer": the session it completes is a shared-computer one', async () => {
      const { uin, browser } = await freshUser();
      const { secret } = await enrolTotp(browser);
      const pending = new Browser(server);
      const login = await pending.call('POST', '/v1/account/login', {
        uin,
        password: PASSWORD,
        shared: true,
      });
      expect((await expectEnvelope(login, 200, 0)).data).toHaveProperty('second_factor');
      // docs/interface.md#sessions-and-sign-out: a shared computer's cookies end with the browser.
      expect(login.headers.get('set-cookie')).not.toMatch(/Max-Age|Expires/i);
      const done = await pending.call('POST', '/v1/account/login/second-factor', {
        totp: totpAt(secret, clock.now()),
      });
      await expectEnvelope(done, 200, 0);
      const cookie = done.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).not.toMatch(/Max-Age|Expires/i);

      const sessions = await envelope<{ sessions: { shared: boolean; current: boolean }[] }>(
        await pending.call('GET', '/v1/account/sessions'),
      );
      expect(sessions.data.sessions.find((session) => session.current)).toMatchObject({ shared: true });
      const query = `client_id=${client.clientId}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`;
      const info = await envelope<{ shared_computer: boolean }>(
        await pending.call('GET', `/v1/oauth2/app-info?${query}`),
      );
      expect(info.data.shared_computer).toBe(true);
      // The silent approval of a remembered consent is refused on a shared computer.
      await obtainCode(pending, client);
      const silent = await pending.call('POST', '/v1/oauth2/authorize', {
        client_id: client.clientId,
        redirect_uri: REDIRECT_URI,
        decision: 'allow',
        remembered: true,
      });
      expect(silent.status).toBe(403);
      // It idles out after 15 minutes, while the password-only session of the same user lives on.
      clock.advance(16 * 60_000);
      await expectEnvelope(await pending.call('GET', '/v1/account/me'), 401, EnvelopeCode.NotSignedIn);
      expect((await browser.call('GET', '/v1/account/me')).status).toBe(200);
    });

    it('without "This is a shared computer", the session it completes keeps its cookie SESSION_TTL', async () => {
      const { secret, pending, login } = await pendingTotpUser();
      expect(login.headers.get('set-cookie')).toMatch(/Max-Age=600\b/);
      const done = await pending.call('POST', '/v1/account/login/second-factor', {
        totp: totpAt(secret, clock.now()),
      });
      await expectEnvelope(done, 200, 0);
      expect(done.headers.get('set-cookie')).toMatch(/Max-Age=604800\b/);
      const sessions = await envelope<{ sessions: { shared: boolean; current: boolean }[] }>(
        await pending.call('GET', '/v1/account/sessions'),
      );
      expect(sessions.data.sessions.find((session) => session.current)).toMatchObject({ shared: false });
    });

    it('accepts the code of the step before and of the step after (RFC 6238 §5.2: one step of drift)', async () => {
      for (const offset of [-STEP_MS, STEP_MS]) {
        const { secret, pending } = await pendingTotpUser();
        // Past the step that confirmed the set-up: that one is used already.
        clock.advance(STEP_MS);
        const response = await pending.call('POST', '/v1/account/login/second-factor', {
          totp: totpAt(secret, clock.now() + offset),
        });
        await expectEnvelope(response, 200, 0);
        clock.advance(3 * STEP_MS);
      }
    });

    it('refuses the code of two steps before or after', async () => {
      for (const offset of [-2 * STEP_MS, 2 * STEP_MS]) {
        const { secret, pending } = await pendingTotpUser();
        const response = await pending.call('POST', '/v1/account/login/second-factor', {
          totp: totpAt(secret, clock.now() + offset),
        });
        await expectEnvelope(response, 401, EnvelopeCode.InvalidRequest);
      }
    });

    it('keeps a code valid to the last millisecond of the step after its own, and not one later', async () => {
      const { secret, pending } = await pendingTotpUser();
      // A code shown in the step starting at `stepStart`: valid through the next step's last millisecond.
      const stepStart = Math.floor(clock.now() / STEP_MS) * STEP_MS;
      const code = totpAt(secret, stepStart);
      clock.set(stepStart + 2 * STEP_MS);
      await expectEnvelope(
        await pending.call('POST', '/v1/account/login/second-factor', { totp: code }),
        401,
        EnvelopeCode.InvalidRequest,
      );
      clock.set(stepStart + 2 * STEP_MS - 1);
      await expectEnvelope(
        await pending.call('POST', '/v1/account/login/second-factor', { totp: code }),
        200,
        0,
      );
      clock.advance(3 * STEP_MS);
    });

    it('never accepts a code twice, nor an older one after it (RFC 6238 §5.2)', async () => {
      const { uin, secret, pending } = await pendingTotpUser();
      const code = totpAt(secret, clock.now());
      const older = totpAt(secret, clock.now() - STEP_MS);
      await expectEnvelope(
        await pending.call('POST', '/v1/account/login/second-factor', { totp: code }),
        200,
        0,
      );
      const again = new Browser(server);
      await again.login(uin, PASSWORD);
      await expectEnvelope(
        await again.call('POST', '/v1/account/login/second-factor', { totp: code }),
        401,
        EnvelopeCode.InvalidRequest,
      );
      await expectEnvelope(
        await again.call('POST', '/v1/account/login/second-factor', { totp: older }),
        401,
        EnvelopeCode.InvalidRequest,
      );
      clock.advance(STEP_MS);
      await expectEnvelope(
        await again.call('POST', '/v1/account/login/second-factor', { totp: totpAt(secret, clock.now()) }),
        200,
        0,
      );
    });

    it('accepts one of two simultaneous requests with the same code', async () => {
      const { uin, secret } = await pendingTotpUser();
      const [a, b] = [new Browser(server), new Browser(server)];
      await a.login(uin, PASSWORD);
      await b.login(uin, PASSWORD);
      const code = totpAt(secret, clock.now());
      const statuses = await Promise.all(
        [a, b].map(
          async (browser) =>
            (await browser.call('POST', '/v1/account/login/second-factor', { totp: code })).status,
        ),
      );
      expect(statuses.sort()).toEqual([200, 401]);
      clock.advance(STEP_MS);
    });

    it('accepts a recovery code once only', async () => {
      const { uin, recoveryCodes, pending } = await pendingTotpUser();
      const [code] = recoveryCodes as [string];
      // Case and separators do not matter.
      const typed = code.toLowerCase().replace('-', ' ');
      await expectEnvelope(
        await pending.call('POST', '/v1/account/login/second-factor', { recovery_code: typed }),
        200,
        0,
      );
      const again = new Browser(server);
      await again.login(uin, PASSWORD);
      await expectEnvelope(
        await again.call('POST', '/v1/account/login/second-factor', { recovery_code: code }),
        401,
        EnvelopeCode.InvalidRequest,
      );
      expect(await server.ctx.store.secondFactors.countUnusedRecoveryCodes(uin)).toBe(9);
    });

    it('ends the pending sign-in after five wrong codes', async () => {
      const { secret, pending } = await pendingTotpUser();
      const wrong = totpAt(secret, clock.now() + 10 * STEP_MS);
      for (let attempt = 1; attempt <= 4; attempt++) {
        await expectEnvelope(
          await pending.call('POST', '/v1/account/login/second-factor', { totp: wrong }),
          401,
          EnvelopeCode.InvalidRequest,
        );
      }
      await expectEnvelope(
        await pending.call('POST', '/v1/account/login/second-factor', { totp: wrong }),
        401,
        EnvelopeCode.NotSignedIn,
      );
      // Even the right code is too late now: the password step must be done again.
      await expectEnvelope(
        await pending.call('POST', '/v1/account/login/second-factor', { totp: totpAt(secret, clock.now()) }),
        401,
        EnvelopeCode.NotSignedIn,
      );
    });

    it('keeps counting wrong codes across new password steps: the account locks (429)', async () => {
      const { uin, secret, pending } = await pendingTotpUser();
      const wrong = totpAt(secret, clock.now() + 10 * STEP_MS);
      for (let attempt = 1; attempt <= 4; attempt++) {
        await pending.call('POST', '/v1/account/login/second-factor', { totp: wrong });
      }
      // A new password step does not wipe the count: the fifth wrong code locks the account.
      const again = new Browser(server);
      await expectEnvelope(await again.login(uin, PASSWORD), 200, 0);
      await again.call('POST', '/v1/account/login/second-factor', { totp: wrong });
      const locked = await again.call('POST', '/v1/account/login/second-factor', {
        totp: totpAt(secret, clock.now()),
      });
      await expectEnvelope(locked, 429, EnvelopeCode.Throttled);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      clock.advance(60 * 60_000);
    });

    it('answers 401 code -1 without a pending sign-in', async () => {
      const anonymous = new Browser(server);
      await expectEnvelope(
        await anonymous.call('POST', '/v1/account/login/second-factor', { totp: '123456' }),
        401,
        EnvelopeCode.NotSignedIn,
      );
    });

    it('refuses a pending sign-in after 10 minutes', async () => {
      const { secret, pending } = await pendingTotpUser();
      clock.advance(10 * 60_000 + STEP_MS);
      await expectEnvelope(
        await pending.call('POST', '/v1/account/login/second-factor', { totp: totpAt(secret, clock.now()) }),
        401,
        EnvelopeCode.NotSignedIn,
      );
    });

    it('needs exactly one answer (400)', async () => {
      const { pending } = await pendingTotpUser();
      for (const body of [{}, { totp: '123456', recovery_code: 'ABCDE-FGHIJ' }, { password: PASSWORD }]) {
        await expectEnvelope(
          await pending.call('POST', '/v1/account/login/second-factor', body),
          400,
          EnvelopeCode.InvalidRequest,
        );
      }
    });
  });

  /** Registers a passkey from `authenticator` on the signed-in account; answers the POST's data. */
  async function enrolPasskey(
    browser: Browser,
    authenticator: SoftAuthenticator,
    name = 'My phone',
  ): Promise<{ passkey: { id: string; name: string }; recovery_codes?: string[] }> {
    const options = await envelope<{ challenge: string; user: { id: string }; rp: { id: string } }>(
      await browser.call('POST', '/v1/account/passkeys/options', {}),
    );
    const response = await browser.call('POST', '/v1/account/passkeys', {
      name,
      response: authenticator.register(options.data),
    });
    const body = await envelope<{ passkey: { id: string; name: string }; recovery_codes?: string[] }>(
      response,
    );
    expect({ status: response.status, msg: body.msg }).toEqual({ status: 200, msg: 'ok' });
    return body.data;
  }

  describe('passkeys', () => {
    it('POST /v1/account/passkeys/options: creation options for the relying party BASE_URL names', async () => {
      const { uin, browser } = await freshUser();
      const options = await envelope<Record<string, unknown>>(
        await browser.call('POST', '/v1/account/passkeys/options', {}),
      );
      expect(options.data).toMatchObject({
        rp: { id: new URL(server.baseUrl).hostname },
        user: { name: String(uin) },
        attestation: 'none',
      });
      // EdDSA, ES256, RS256 on every Node version: never ML-DSA, which only Node 24's WebCrypto verifies.
      expect(options.data['pubKeyCredParams']).toEqual([
        { alg: -8, type: 'public-key' },
        { alg: -7, type: 'public-key' },
        { alg: -257, type: 'public-key' },
      ]);
    });

    it('POST /v1/account/passkeys registers a named passkey, listed by GET and with recovery codes', async () => {
      const { browser } = await freshUser();
      const data = await enrolPasskey(browser, new SoftAuthenticator(server.baseUrl), 'Laptop');
      expect(data.recovery_codes).toHaveLength(10);
      const list = await envelope<{ passkeys: { id: string; name: string; synced: boolean }[] }>(
        await browser.call('GET', '/v1/account/passkeys'),
      );
      expect(list.data.passkeys).toEqual([
        {
          id: data.passkey.id,
          name: 'Laptop',
          created_at: expect.any(String),
          last_used_at: null,
          synced: false,
        },
      ]);
    });

    it('refuses a registration whose challenge was used already or was never issued', async () => {
      const { browser } = await freshUser();
      const authenticator = new SoftAuthenticator(server.baseUrl);
      const options = await envelope<{ challenge: string; user: { id: string } }>(
        await browser.call('POST', '/v1/account/passkeys/options', {}),
      );
      const response = authenticator.register(options.data);
      await expectEnvelope(
        await browser.call('POST', '/v1/account/passkeys', { name: 'A', response }),
        200,
        0,
      );
      await expectEnvelope(
        await browser.call('POST', '/v1/account/passkeys', { name: 'A again', response }),
        400,
        EnvelopeCode.InvalidRequest,
      );
      const forged = authenticator.register({ challenge: 'bm90LWlzc3VlZA', user: options.data.user });
      await expectEnvelope(
        await browser.call('POST', '/v1/account/passkeys', { name: 'B', response: forged }),
        400,
        EnvelopeCode.InvalidRequest,
      );
    });

    it('refuses a registration from another origin, or after 5 minutes', async () => {
      const { browser } = await freshUser();
      const authenticator = new SoftAuthenticator(server.baseUrl);
      const first = await envelope<{ challenge: string; user: { id: string } }>(
        await browser.call('POST', '/v1/account/passkeys/options', {}),
      );
      await expectEnvelope(
        await browser.call('POST', '/v1/account/passkeys', {
          name: 'Phishing',
          response: authenticator.register(first.data, 'https://evil.example'),
        }),
        400,
        EnvelopeCode.InvalidRequest,
      );
      const second = await envelope<{ challenge: string; user: { id: string } }>(
        await browser.call('POST', '/v1/account/passkeys/options', {}),
      );
      clock.advance(5 * 60_000 + 1);
      await expectEnvelope(
        await browser.call('POST', '/v1/account/passkeys', {
          name: 'Late',
          response: authenticator.register(second.data),
        }),
        400,
        EnvelopeCode.InvalidRequest,
      );
    });

    it('a ceremony begun on one instance finishes on another (challenges in the database)', async () => {
      const other = await startTestServer({
        transport: 'inject',
        databaseUrl: server.databaseUrl,
        clock,
        env: { MFA_REQUIRED_GROUPS: 'admin' },
      });
      try {
        const { browser } = await freshUser();
        const options = await envelope<{ challenge: string; user: { id: string } }>(
          await browser.call('POST', '/v1/account/passkeys/options', {}),
        );
        const onOther = new Browser(other);
        // The same cookie, as a load balancer would hand it to the other instance.
        const response = await onOther.call(
          'POST',
          '/v1/account/passkeys',
          // The other instance has its own port, so its origin differs: it expects its own BASE_URL.
          { name: 'Across', response: new SoftAuthenticator(other.baseUrl).register(options.data) },
          { cookie: browser.sessionCookie ?? '' },
        );
        await expectEnvelope(response, 200, 0);
      } finally {
        await other.close();
      }
    });

    it('completes a pending sign-in as the second factor', async () => {
      const { uin, browser } = await freshUser();
      const authenticator = new SoftAuthenticator(server.baseUrl);
      await enrolPasskey(browser, authenticator);
      const pending = new Browser(server);
      const login = await expectEnvelope(await pending.login(uin, PASSWORD), 200, 0);
      expect(login.data.second_factor).toEqual(['passkey', 'recovery_code']);
      const options = await envelope<{ challenge: string; allowCredentials: { id: string }[] }>(
        await pending.call('POST', '/v1/account/login/second-factor/options', {}),
      );
      expect(options.data.allowCredentials).toHaveLength(1);
      await expectEnvelope(
        await pending.call('POST', '/v1/account/login/second-factor', {
          passkey: authenticator.assert(options.data),
        }),
        200,
        0,
      );
      await expectEnvelope(await pending.call('GET', '/v1/account/me'), 200, 0);
    });

    it("refuses another user's passkey as the second factor", async () => {
      const mallory = await freshUser();
      const malloryKey = new SoftAuthenticator(server.baseUrl);
      await enrolPasskey(mallory.browser, malloryKey);
      const { uin, browser } = await freshUser();
      await enrolPasskey(browser, new SoftAuthenticator(server.baseUrl));
      const pending = new Browser(server);
      await pending.login(uin, PASSWORD);
      const options = await envelope<{ challenge: string }>(
        await pending.call('POST', '/v1/account/login/second-factor/options', {}),
      );
      await expectEnvelope(
        await pending.call('POST', '/v1/account/login/second-factor', {
          passkey: malloryKey.assert({ challenge: options.data.challenge }),
        }),
        401,
        EnvelopeCode.InvalidRequest,
      );
    });

    it('POST /v1/account/passkey-login signs in without a uin or password', async () => {
      const { uin, browser } = await freshUser();
      const authenticator = new SoftAuthenticator(server.baseUrl);
      await enrolPasskey(browser, authenticator);
      const fresh = new Browser(server);
      const options = await envelope<{
        challenge: string;
        userVerification: string;
        allowCredentials?: { id: string }[];
      }>(await fresh.call('POST', '/v1/account/passkey-login/options', {}));
      expect(options.data.userVerification).toBe('required');
      expect(options.data.allowCredentials ?? []).toEqual([]);
      const login = await fresh.call('POST', '/v1/account/passkey-login', {
        response: authenticator.assert(options.data),
      });
      expect((await expectEnvelope(login, 200, 0)).data).toEqual({ uin, user_group: 'member' });
      const me = await envelope<{ uin: number }>(await fresh.call('GET', '/v1/account/me'));
      expect(me.data.uin).toBe(uin);
    });

    it('refuses a passwordless sign-in without user verification, or with a used challenge', async () => {
      const { browser } = await freshUser();
      const unverified = new SoftAuthenticator(server.baseUrl, { userVerified: false });
      await enrolPasskey(browser, unverified);
      const fresh = new Browser(server);
      const options = await envelope<{ challenge: string }>(
        await fresh.call('POST', '/v1/account/passkey-login/options', {}),
      );
      await expectEnvelope(
        await fresh.call('POST', '/v1/account/passkey-login', { response: unverified.assert(options.data) }),
        401,
        EnvelopeCode.InvalidRequest,
      );
      await expectEnvelope(await fresh.call('GET', '/v1/account/me'), 401, EnvelopeCode.NotSignedIn);
    });

    it('DELETE /v1/account/passkeys/:id removes it; without a factor left the recovery codes go too', async () => {
      const { uin, browser } = await freshUser();
      const { passkey } = await enrolPasskey(browser, new SoftAuthenticator(server.baseUrl));
      await expectEnvelope(await browser.call('DELETE', `/v1/account/passkeys/${passkey.id}`), 200, 0);
      await expectEnvelope(
        await browser.call('DELETE', `/v1/account/passkeys/${passkey.id}`),
        404,
        EnvelopeCode.NotFound,
      );
      expect(await server.ctx.store.secondFactors.countUnusedRecoveryCodes(uin)).toBe(0);
      const login = await expectEnvelope(await new Browser(server).login(uin, PASSWORD), 200, 0);
      expect(login.data).toEqual({ uin, user_group: 'member' });
    });
  });

  describe('DELETE /v1/account/totp', () => {
    it('needs the password, then removes TOTP and the recovery codes with it', async () => {
      const { uin, browser } = await freshUser();
      await enrolTotp(browser);
      await expectEnvelope(
        await browser.call('DELETE', '/v1/account/totp', { password: 'wrong password' }),
        401,
        EnvelopeCode.InvalidRequest,
      );
      await expectEnvelope(await browser.call('DELETE', '/v1/account/totp', { password: PASSWORD }), 200, 0);
      expect(await server.ctx.store.secondFactors.findTotp(uin)).toBeUndefined();
      expect(await server.ctx.store.secondFactors.countUnusedRecoveryCodes(uin)).toBe(0);
    });
  });

  describe('POST /v1/account/recovery-codes', () => {
    it('answers a new set with the password; the old codes stop working', async () => {
      const { uin, browser } = await freshUser();
      const { recoveryCodes } = await enrolTotp(browser);
      const response = await browser.call('POST', '/v1/account/recovery-codes', { password: PASSWORD });
      const fresh = (await expectEnvelope(response, 200, 0)).data.recovery_codes as string[];
      expect(fresh).toHaveLength(10);
      const pending = new Browser(server);
      await pending.login(uin, PASSWORD);
      await expectEnvelope(
        await pending.call('POST', '/v1/account/login/second-factor', { recovery_code: recoveryCodes[0] }),
        401,
        EnvelopeCode.InvalidRequest,
      );
      await expectEnvelope(
        await pending.call('POST', '/v1/account/login/second-factor', { recovery_code: fresh[0] }),
        200,
        0,
      );
    });

    it('refuses without a second factor (409) and with a wrong password (401)', async () => {
      const { browser } = await freshUser();
      await expectEnvelope(
        await browser.call('POST', '/v1/account/recovery-codes', { password: PASSWORD }),
        409,
        EnvelopeCode.Conflict,
      );
      await enrolTotp(browser);
      await expectEnvelope(
        await browser.call('POST', '/v1/account/recovery-codes', { password: 'not the password' }),
        401,
        EnvelopeCode.InvalidRequest,
      );
    });
  });

  describe('MFA_REQUIRED_GROUPS (admin)', () => {
    it('an admin without a second factor signs in, but every admin call answers 403 code 8', async () => {
      const { browser } = await freshUser('admin');
      await expectEnvelope(await browser.call('GET', '/v1/account/me'), 200, 0);
      await expectEnvelope(
        await browser.call('GET', '/v1/admin/apps'),
        403,
        EnvelopeCode.SecondFactorRequired,
      );
      await expectEnvelope(
        await browser.call('POST', '/v1/admin/users', {
          uin: freshUin(),
          password: PASSWORD,
          user_group: 'user',
        }),
        403,
        EnvelopeCode.SecondFactorRequired,
      );
      const factors = await envelope<{ required: boolean; totp: boolean }>(
        await browser.call('GET', '/v1/account/second-factors'),
      );
      expect(factors.data).toMatchObject({ required: true, totp: false });
    });

    it('admin calls work once the admin has enrolled a factor', async () => {
      const { browser } = await freshUser('admin');
      await enrolTotp(browser);
      await expectEnvelope(await browser.call('GET', '/v1/admin/apps'), 200, 0);
    });

    it('is off for every group when MFA_REQUIRED_GROUPS is empty', async () => {
      const relaxed = await startTestServer({
        transport: 'inject',
        database,
        env: { MFA_REQUIRED_GROUPS: '' },
      });
      try {
        const uin = freshUin();
        await relaxed.ctx.users.create(uin, PASSWORD, 'admin');
        const browser = new Browser(relaxed);
        await browser.login(uin, PASSWORD);
        await expectEnvelope(await browser.call('GET', '/v1/admin/apps'), 200, 0);
      } finally {
        await relaxed.close();
      }
    });

    it('defaults to admin when MFA_REQUIRED_GROUPS is unset', () => {
      expect(server.config.mfaRequiredGroups).toEqual(['admin']);
    });
  });

  describe('DELETE /v1/admin/users/:uin/second-factors', () => {
    it('removes every factor of the user, who then signs in with the password alone', async () => {
      const admin = await freshUser('admin');
      await enrolTotp(admin.browser);
      const { uin, browser } = await freshUser();
      await enrolTotp(browser);
      await enrolPasskey(browser, new SoftAuthenticator(server.baseUrl));
      await expectEnvelope(
        await admin.browser.call('DELETE', `/v1/admin/users/${uin}/second-factors`),
        200,
        0,
      );
      const login = await expectEnvelope(await new Browser(server).login(uin, PASSWORD), 200, 0);
      expect(login.data).toEqual({ uin, user_group: 'member' });
      await expectEnvelope(
        await admin.browser.call('DELETE', `/v1/admin/users/${freshUin()}/second-factors`),
        404,
        EnvelopeCode.NotFound,
      );
    });

    it('is for admins only (403 code 4)', async () => {
      const { uin, browser } = await freshUser();
      await expectEnvelope(
        await browser.call('DELETE', `/v1/admin/users/${uin}/second-factors`),
        403,
        EnvelopeCode.Forbidden,
      );
    });
  });

  describe('amr in the id_token (RFC 8176)', () => {
    async function idTokenAmr(browser: Browser): Promise<unknown> {
      const code = await obtainCode(browser, client, { scope: 'openid', response_type: 'code' });
      const response = await exchangeCode(server, client, code);
      const tokens = await json<{ id_token: string }>(response);
      return decodeJwt(tokens.id_token).amr;
    }

    it('says pwd for a password alone', async () => {
      const { browser } = await freshUser();
      expect(await idTokenAmr(browser)).toEqual(['pwd']);
    });

    it('says pwd, otp and mfa after a TOTP code', async () => {
      const { secret, pending } = await pendingTotpUser();
      await pending.call('POST', '/v1/account/login/second-factor', { totp: totpAt(secret, clock.now()) });
      expect(await idTokenAmr(pending)).toEqual(['pwd', 'otp', 'mfa']);
    });

    it('says hwk and mfa after a passwordless sign-in with a device-bound passkey; swk for a synced one', async () => {
      for (const [synced, method] of [
        [false, 'hwk'],
        [true, 'swk'],
      ] as const) {
        const { browser } = await freshUser();
        const authenticator = new SoftAuthenticator(server.baseUrl, { synced });
        await enrolPasskey(browser, authenticator);
        const fresh = new Browser(server);
        const options = await envelope<{ challenge: string }>(
          await fresh.call('POST', '/v1/account/passkey-login/options', {}),
        );
        await fresh.call('POST', '/v1/account/passkey-login', {
          response: authenticator.assert(options.data),
        });
        expect(await idTokenAmr(fresh)).toEqual([method, 'mfa']);
      }
    });
  });
});
