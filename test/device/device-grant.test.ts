/**
 * The Device Authorization Grant (RFC 8628; docs/interface.md#device-authorization-grant): the per-app switch,
 * the device authorization endpoint, the token endpoint's device_code grant in every state, and the #/device
 * page's calls (lookup and decision) with their throttle, single use and audit. Over real HTTP, on SQLite
 * and PostgreSQL, with a clock the tests move.
 */
import { decodeJwt } from 'jose';
import { generateSync } from 'otplib';
import { describe, expect, it } from 'vitest';
import { credentialKey } from '../../src/oauth/credentials.js';
import { EnvelopeCode } from '../../src/shared/envelope.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import {
  type Client,
  PASSWORD,
  basic,
  expectOAuthError,
  freshUin,
  postForm,
  registerClient,
  type TokenBody,
} from '../oauth/support.js';

const GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

interface Envelope<T = Record<string, unknown>> {
  code: number;
  msg: string;
  data: T;
}

describeOnDatabases(
  'Device Authorization Grant',
  { transport: 'inject', manualClock: true, user: 'admin', env: { DEVICE_CODE_TTL: '300' } },
  ({ server, clock, user }) => {
    const admin = user.browser;

    const screenApp = (extra: Parameters<typeof registerClient>[1] = {}): Promise<Client> =>
      registerClient(server, {
        name: 'Classroom screen',
        emoji: '📺',
        redirectUris: [],
        deviceGrant: true,
        ...extra,
      });

    function authorizeDevice(
      app: Client,
      form: Record<string, string> = { scope: 'openid offline_access' },
    ): Promise<Response> {
      return postForm(server, '/v1/oauth2/device_authorization', form, basic(app.clientId, app.clientSecret));
    }

    async function startDevice(app: Client, scope = 'openid offline_access'): Promise<DeviceAuthorization> {
      const response = await authorizeDevice(app, { scope });
      expect(response.status).toBe(200);
      return json<DeviceAuthorization>(response);
    }

    function poll(app: Client, deviceCode: string): Promise<Response> {
      return postForm(
        server,
        '/v1/oauth2/token',
        { grant_type: GRANT_TYPE, device_code: deviceCode },
        basic(app.clientId, app.clientSecret),
      );
    }

    const lookup = (browser: Browser, userCode: string): Promise<Response> =>
      browser.call('POST', '/v1/oauth2/device/lookup', { user_code: userCode });
    const decide = (browser: Browser, userCode: string, allow: boolean): Promise<Response> =>
      browser.call('POST', '/v1/oauth2/device/decision', { user_code: userCode, allow });

    async function student(groups: string[] = []): Promise<{ uin: number; browser: Browser }> {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'member', { groups });
      const browser = new Browser(server);
      expect((await browser.login(uin, PASSWORD)).status).toBe(200);
      return { uin, browser };
    }

    async function auditActions(uin: number): Promise<string[]> {
      const response = await admin.call('GET', `/v1/admin/audit?uin=${uin}&limit=100`);
      const body = await json<Envelope<{ events: { action: string; outcome: string }[] }>>(response);
      return body.data.events.map((e) => `${e.action}:${e.outcome}`).reverse();
    }

    describe('the per-app switch', () => {
      it('registers a device-only app without a redirect URI through the admin API', async () => {
        const response = await admin.call('POST', '/v1/admin/apps', {
          name: 'Smart board',
          emoji: '🖥️',
          device_grant: true,
        });
        const body =
          await json<Envelope<{ app: { device_grant: boolean; redirect_uris: string[] } }>>(response);
        expect(response.status).toBe(200);
        expect(body.data.app).toMatchObject({ device_grant: true, redirect_uris: [] });
      });

      it('still requires a redirect URI of an app without the device grant', async () => {
        const response = await admin.call('POST', '/v1/admin/apps', { name: 'Web app', emoji: '🌐' });
        expect(response.status).toBe(400);
        const created = await screenApp();
        const off = await admin.call('PATCH', `/v1/admin/apps/${created.clientId}`, { device_grant: false });
        expect(off.status).toBe(400);
        expect((await server.ctx.store.apps.find(created.clientId))?.deviceGrant).toBe(true);
      });

      it('answers unauthorized_client to an app without the switch, at both endpoints', async () => {
        const web = await registerClient(server);
        await expectOAuthError(await authorizeDevice(web), 400, 'unauthorized_client');
        await expectOAuthError(await poll(web, 'x'.repeat(51)), 400, 'unauthorized_client');
      });

      it('voids pending codes when the switch is turned off', async () => {
        const app = await registerClient(server, { deviceGrant: true });
        const device = await startDevice(app);
        await admin.call('PATCH', `/v1/admin/apps/${app.clientId}`, { device_grant: false });
        const { browser } = await student();
        expect((await lookup(browser, device.user_code)).status).toBe(404);
        await expectOAuthError(await poll(app, device.device_code), 400, 'unauthorized_client');
      });
    });

    describe('POST /v1/oauth2/device_authorization', () => {
      it('answers RFC 8628 §3.2 fields, with a user code of 8 consonants written WDJB-MJHT', async () => {
        const app = await screenApp();
        // oauthlib sends grant_type here: unknown parameters are ignored.
        const response = await authorizeDevice(app, { scope: 'openid', grant_type: GRANT_TYPE, extra: 'x' });
        expect(response.status).toBe(200);
        expect(response.headers.get('cache-control')).toBe('no-store');
        const body = await json<DeviceAuthorization>(response);
        expect(body.user_code).toMatch(USER_CODE);
        expect(body.device_code).toMatch(/^[A-Za-z0-9_-]{51}$/);
        expect(body).toMatchObject({
          verification_uri: `${server.baseUrl}/#/device`,
          verification_uri_complete: `${server.baseUrl}/#/device?user_code=${body.user_code}`,
          expires_in: 300,
          interval: 5,
        });
      });

      it('stores both codes only as hashes', async () => {
        const app = await screenApp();
        const device = await startDevice(app);
        const stored = await server.ctx.store.deviceAuthorizations.findByDeviceCode(
          credentialKey(device.device_code),
        );
        expect(stored?.clientId).toBe(app.clientId);
        const dump = JSON.stringify(stored);
        expect(dump).not.toContain(device.device_code);
        expect(dump).not.toContain(device.user_code.replace('-', ''));
        expect(dump).not.toContain(device.user_code);
      });

      it('refuses a wrong client secret and a malformed scope', async () => {
        const app = await screenApp();
        const wrong = await postForm(
          server,
          '/v1/oauth2/device_authorization',
          { scope: 'openid' },
          basic(app.clientId, 'wrong'),
        );
        await expectOAuthError(wrong, 401, 'invalid_client');
        await expectOAuthError(await authorizeDevice(app, { scope: 'open"id' }), 400, 'invalid_scope');
      });
    });

    describe('polling the token endpoint', () => {
      it('answers authorization_pending, then slow_down growing by 5 s each time polled too soon', async () => {
        const app = await screenApp();
        const device = await startDevice(app);
        await expectOAuthError(await poll(app, device.device_code), 400, 'authorization_pending');
        clock.advance(1000);
        const first = await expectOAuthError(await poll(app, device.device_code), 400, 'slow_down');
        expect(first.error_description).toContain('10 seconds');
        clock.advance(9000);
        const second = await expectOAuthError(await poll(app, device.device_code), 400, 'slow_down');
        expect(second.error_description).toContain('15 seconds');
        // Waiting the grown interval: pending again, and the interval stays grown.
        clock.advance(15_000);
        await expectOAuthError(await poll(app, device.device_code), 400, 'authorization_pending');
        clock.advance(14_000);
        const third = await expectOAuthError(await poll(app, device.device_code), 400, 'slow_down');
        expect(third.error_description).toContain('20 seconds');
      });

      it('answers expired_token once the code has expired, and the code can no longer be approved', async () => {
        const app = await screenApp();
        const device = await startDevice(app);
        clock.advance(300_000);
        await expectOAuthError(await poll(app, device.device_code), 400, 'expired_token');
        const { browser } = await student();
        expect((await decide(browser, device.user_code, true)).status).toBe(404);
      });

      it('answers invalid_grant to an unknown code and to another client', async () => {
        const app = await screenApp();
        const other = await screenApp();
        const device = await startDevice(app);
        await expectOAuthError(await poll(app, 'nope'), 400, 'invalid_grant');
        await expectOAuthError(await poll(other, device.device_code), 400, 'invalid_grant');
        await expectOAuthError(
          await postForm(
            server,
            '/v1/oauth2/token',
            { grant_type: GRANT_TYPE },
            basic(app.clientId, app.clientSecret),
          ),
          400,
          'invalid_request',
        );
      });

      it('answers access_denied after Deny, and audits it', async () => {
        const app = await screenApp();
        const device = await startDevice(app);
        const { uin, browser } = await student();
        const denied = await decide(browser, device.user_code, false);
        expect(denied.status).toBe(200);
        expect((await json<Envelope>(denied)).data).toMatchObject({
          decision: 'denied',
          name: 'Classroom screen',
        });
        await expectOAuthError(await poll(app, device.device_code), 400, 'access_denied');
        expect(await auditActions(uin)).toContain('device_denied:success');
      });

      it('issues tokens as for a code after Allow: refresh token, id_token with amr and sid, once', async () => {
        const app = await screenApp();
        const device = await startDevice(app, 'openid offline_access profile');
        const { uin, browser } = await student();
        const allowed = await decide(browser, device.user_code, true);
        expect(allowed.status).toBe(200);
        clock.advance(5000);
        const response = await poll(app, device.device_code);
        expect(response.status).toBe(200);
        const tokens = await json<TokenBody>(response);
        expect(tokens.refresh_token).toBeDefined();
        expect(tokens.scope).toBe('openid offline_access profile');
        const claims = decodeJwt(tokens.id_token!);
        expect(claims).toMatchObject({ sub: String(uin), aud: app.clientId, amr: ['pwd'] });
        expect(typeof claims.sid).toBe('string');
        // The token works.
        const info = await server.fetch(`/v1/oauth2/userinfo`, {
          headers: { authorization: `Bearer ${tokens.access_token}` },
        });
        expect(info.status).toBe(200);
        // Single use: a second redemption is refused (and revokes what the first got, as a replayed code).
        clock.advance(5000);
        await expectOAuthError(await poll(app, device.device_code), 400, 'invalid_grant');
        const after = await server.fetch(`/v1/oauth2/userinfo`, {
          headers: { authorization: `Bearer ${tokens.access_token}` },
        });
        expect(after.status).toBe(401);
        // The refresh token of the grant works like any other (the app's refresh switch applies).
        expect(await auditActions(uin)).toContain('device_approved:success');
      });

      it('gives no tokens when the approving user is disabled before the device polls', async () => {
        const app = await screenApp();
        const device = await startDevice(app);
        const { uin, browser } = await student();
        expect((await decide(browser, device.user_code, true)).status).toBe(200);
        await server.ctx.users.setDisabled(uin, true);
        await expectOAuthError(await poll(app, device.device_code), 400, 'invalid_grant');
      });

      it('answers expired_token, not invalid_grant, when allowed too late for the next poll', async () => {
        const app = await screenApp();
        const device = await startDevice(app);
        const { browser } = await student();
        clock.advance(299_000);
        expect((await decide(browser, device.user_code, true)).status).toBe(200);
        clock.advance(5000);
        await expectOAuthError(await poll(app, device.device_code), 400, 'expired_token');
      });

      it('redeems an approved device code only through the device grant, never as a code at the legacy endpoint', async () => {
        const app = await screenApp({ redirectUris: ['https://screen.example.edu/cb'] });
        const device = await startDevice(app);
        const { browser } = await student();
        expect((await decide(browser, device.user_code, true)).status).toBe(200);
        const legacy = await server.fetch('/v1/oauth2/get-access-token', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_id: app.clientId,
            client_secret: app.clientSecret,
            code: device.device_code,
          }),
        });
        expect((await json<Envelope>(legacy)).data).not.toHaveProperty('access_token');
        // Still good for the device, which the legacy attempt did not use up.
        clock.advance(5000);
        expect((await poll(app, device.device_code)).status).toBe(200);
      });

      it('records the consent: the app is on #/account, and withdrawing it ends what the device holds', async () => {
        const app = await screenApp();
        const device = await startDevice(app);
        const { browser } = await student();
        expect((await decide(browser, device.user_code, true)).status).toBe(200);
        clock.advance(5000);
        const tokens = await json<TokenBody>(await poll(app, device.device_code));
        const consents = await json<Envelope<{ consents: { client_id: string; scope: string }[] }>>(
          await browser.call('GET', '/v1/account/consents'),
        );
        expect(consents.data.consents).toContainEqual(
          expect.objectContaining({ client_id: app.clientId, scope: 'openid offline_access' }),
        );
        expect((await browser.call('DELETE', `/v1/account/consents/${app.clientId}`)).status).toBe(200);
        const refreshed = await postForm(
          server,
          '/v1/oauth2/token',
          { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
          basic(app.clientId, app.clientSecret),
        );
        await expectOAuthError(refreshed, 400, 'invalid_grant');
      });

      it('keeps to allowed_groups: outsiders cannot approve, and a member moved out gets no tokens', async () => {
        const app = await screenApp({ allowedGroups: ['teachers'] });
        const device = await startDevice(app);
        const outsider = await student(['students']);
        const refused = await decide(outsider.browser, device.user_code, true);
        expect(refused.status).toBe(403);
        expect(await auditActions(outsider.uin)).toContain('device_approved:denied');
        const teacher = await student(['teachers']);
        expect((await decide(teacher.browser, device.user_code, true)).status).toBe(200);
        await server.ctx.store.users.update(teacher.uin, { groups: ['students'] });
        await expectOAuthError(await poll(app, device.device_code), 400, 'invalid_grant');
      });
    });

    describe('the #/device page calls', () => {
      it('shows the app, scopes, and the device request address and time; input forgiving of case, dashes and spaces', async () => {
        const app = await screenApp();
        const requestedAt = clock.now();
        const device = await startDevice(app, 'openid profile');
        const { browser } = await student();
        const typed = ` ${device.user_code.replace('-', ' ').toLowerCase()} `;
        const response = await lookup(browser, typed);
        expect(response.status).toBe(200);
        expect(response.headers.get('cache-control')).toBe('no-store');
        const body = await json<Envelope>(response);
        expect(body.data).toMatchObject({
          client_id: app.clientId,
          name: 'Classroom screen',
          emoji: '📺',
          scope: 'openid profile',
          requested_at: new Date(requestedAt).toISOString(),
        });
        expect(typeof body.data.ip).toBe('string');
        expect(body.data.ip).not.toBe('');
        // Dashes anywhere are ignored too.
        expect((await lookup(browser, device.user_code.split('').join('-').toLowerCase())).status).toBe(200);
      });

      it('needs a full sign-in: no session, or a password without its second factor, is 401', async () => {
        const app = await screenApp();
        const device = await startDevice(app);
        const nobody = new Browser(server);
        expect((await lookup(nobody, device.user_code)).status).toBe(401);
        expect((await decide(nobody, device.user_code, true)).status).toBe(401);
        // A user with TOTP whose password step alone is done.
        const uin = freshUin();
        await server.ctx.users.create(uin, PASSWORD, 'member');
        const setup = await server.ctx.totp.setup(uin);
        const code = generateSync({ secret: setup!.secret, epoch: Math.floor(clock.now() / 1000) });
        expect(await server.ctx.totp.confirm(uin, code)).toBe(true);
        const pending = new Browser(server);
        const login = await json<Envelope<{ second_factor?: string[] }>>(await pending.login(uin, PASSWORD));
        expect(login.data.second_factor).toContain('totp');
        expect((await lookup(pending, device.user_code)).status).toBe(401);
        expect((await decide(pending, device.user_code, true)).status).toBe(401);
        await expectOAuthError(await poll(app, device.device_code), 400, 'authorization_pending');
      });

      it('lets one of two racing approvals win; the other finds the code used', async () => {
        const app = await screenApp();
        const device = await startDevice(app);
        const a = await student();
        const b = await student();
        const answers = await Promise.all([
          decide(a.browser, device.user_code, true),
          decide(b.browser, device.user_code, true),
        ]);
        expect(answers.map((r) => r.status).sort()).toEqual([200, 404]);
        const winner = answers[0]!.status === 200 ? a.uin : b.uin;
        clock.advance(5000);
        const tokens = await json<TokenBody>(await poll(app, device.device_code));
        expect(decodeJwt(tokens.id_token!).sub).toBe(String(winner));
      });

      it('refuses a used code, counted as a wrong one', async () => {
        const app = await screenApp();
        const device = await startDevice(app);
        const { uin, browser } = await student();
        expect((await decide(browser, device.user_code, false)).status).toBe(200);
        const again = await decide(browser, device.user_code, true);
        expect(again.status).toBe(404);
        expect((await json<Envelope>(again)).code).toBe(EnvelopeCode.NotFound);
        expect(await auditActions(uin)).toContain('device_code_entered:failure');
      });

      it('throttles wrong codes: 5 a minute per session, then 429 with Retry-After', async () => {
        const app = await screenApp();
        const device = await startDevice(app);
        const { uin, browser } = await student();
        for (let i = 0; i < 5; i++) expect((await lookup(browser, 'BBBB-BBBB')).status).toBe(404);
        const throttled = await lookup(browser, 'BBBB-BBBB');
        expect(throttled.status).toBe(429);
        expect((await json<Envelope>(throttled)).code).toBe(EnvelopeCode.Throttled);
        expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
        // Even the right code waits, so guessing gains nothing.
        expect((await lookup(browser, device.user_code)).status).toBe(429);
        expect(await auditActions(uin)).toContain('device_code_entered:locked');
        // Another session from elsewhere is not held up by this one's budget... but here it shares the
        // address, which still has budget.
        const other = await student();
        expect((await lookup(other.browser, device.user_code)).status).toBe(200);
        // After the minute the session may try again.
        clock.advance(60_000);
        expect((await lookup(browser, device.user_code)).status).toBe(200);
      });

      it('throttles wrong codes per address: 60 a minute across sessions', async () => {
        clock.advance(60_000);
        const app = await screenApp();
        const device = await startDevice(app);
        const sessions = await Promise.all(Array.from({ length: 12 }, () => student()));
        for (const s of sessions) {
          for (let i = 0; i < 5; i++) expect((await lookup(s.browser, 'CCCC-CCCC')).status).toBe(404);
        }
        const fresh = await student();
        const throttled = await lookup(fresh.browser, device.user_code);
        expect(throttled.status).toBe(429);
        expect(throttled.headers.get('retry-after')).not.toBeNull();
        clock.advance(60_000);
        expect((await lookup(fresh.browser, device.user_code)).status).toBe(200);
      });

      it("never charges the address for a session's refused retries: one student cannot lock out the class", async () => {
        clock.advance(60_000);
        const app = await screenApp();
        const device = await startDevice(app);
        const { browser } = await student();
        for (let i = 0; i < 5; i++) expect((await lookup(browser, 'DDDD-DDDD')).status).toBe(404);
        for (let i = 0; i < 60; i++) expect((await lookup(browser, 'DDDD-DDDD')).status).toBe(429);
        const classmate = await student();
        expect((await lookup(classmate.browser, device.user_code)).status).toBe(200);
      });
    });
  },
);
