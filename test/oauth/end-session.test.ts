/**
 * OpenID Connect RP-Initiated Logout 1.0 at `/v1/oauth2/logout` (docs/interface.md#sessions-and-sign-out):
 * a valid id_token_hint signs the user out at once; anything else asks on the page `#/logout`; the browser
 * goes back to the app only at a registered post_logout_redirect_uri.
 */
import { SignJWT, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { signIdToken } from '../../src/oauth/id-token.js';
import { type DatabaseSuiteOptions, describeOnDatabases } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import { REDIRECT_URI, signedInUser, tokensFor } from './support.js';

const AFTER_LOGOUT = 'https://app.example.edu/signed-out';

const isSignedIn = async (browser: Browser): Promise<boolean> =>
  (await browser.call('GET', '/v1/account/me')).status === 200;

const SUITE: DatabaseSuiteOptions = {
  transport: 'inject',
  client: { postLogoutRedirectUris: [AFTER_LOGOUT] },
};

describeOnDatabases('RP-initiated logout', SUITE, ({ server, client }) => {
  async function signedInWithIdToken(): Promise<{ uin: number; browser: Browser; idToken: string }> {
    const { uin, browser } = await signedInUser(server);
    const tokens = await tokensFor(server, browser, client, { scope: 'openid' });
    return { uin, browser, idToken: tokens.id_token ?? '' };
  }

  const logout = (browser: Browser, params: Record<string, string>): Promise<Response> =>
    browser.call('GET', `/v1/oauth2/logout?${new URLSearchParams(params)}`);

  describe('metadata', () => {
    it('announces end_session_endpoint and back-channel logout with sid', async () => {
      const metadata = await json(await server.fetch(`/.well-known/openid-configuration`));
      expect(metadata).toMatchObject({
        end_session_endpoint: `${server.baseUrl}/v1/oauth2/logout`,
        backchannel_logout_supported: true,
        backchannel_logout_session_supported: true,
      });
    });
  });

  describe('GET /v1/oauth2/logout', () => {
    it('with a valid id_token_hint, signs out at once, records it, and goes to the registered URI with state', async () => {
      const { uin, browser, idToken } = await signedInWithIdToken();
      const response = await logout(browser, {
        id_token_hint: idToken,
        post_logout_redirect_uri: AFTER_LOGOUT,
        state: 'xyz 1',
      });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${AFTER_LOGOUT}?state=xyz+1`);
      expect(response.headers.get('set-cookie')).toMatch(/Max-Age=0/);
      expect(await isSignedIn(browser)).toBe(false);
      const [event] = await server.ctx.store.audit.list({ uin, actions: ['sign_out'], limit: 10 });
      expect(event).toMatchObject({
        action: 'sign_out',
        actorUin: uin,
        target: `user:${uin}`,
        outcome: 'success',
        detail: { client_id: client.clientId },
      });
    });

    it('accepts an expired id_token as the hint', async () => {
      const { uin, browser } = await signedInUser(server);
      const user = await server.ctx.store.users.find(uin);
      const expired = await signIdToken(server.ctx, {
        user: user!,
        clientId: client.clientId,
        authTime: Date.now() - 48 * 3_600_000,
        amr: ['pwd'],
        nonce: null,
        accessToken: 'x',
        issuedAt: Date.now() - 24 * 3_600_000,
      });
      const response = await logout(browser, {
        id_token_hint: expired,
        post_logout_redirect_uri: AFTER_LOGOUT,
      });
      expect(response.headers.get('location')).toBe(AFTER_LOGOUT);
      expect(await isSignedIn(browser)).toBe(false);
    });

    it('with a valid hint and an unregistered or modified URI, signs nobody out, sends nowhere, shows an error', async () => {
      const { browser, idToken } = await signedInWithIdToken();
      for (const uri of [
        'https://evil.example/phish',
        `${AFTER_LOGOUT}?extra=1`,
        `${AFTER_LOGOUT}/more`,
        AFTER_LOGOUT.toUpperCase(),
      ]) {
        const response = await logout(browser, {
          id_token_hint: idToken,
          post_logout_redirect_uri: uri,
          state: 's',
          ui_locales: 'zh-CN',
        });
        expect(response.status).toBe(302);
        expect(response.headers.get('location')).toBe(
          `${server.baseUrl}/#/logout?error=unregistered_post_logout_redirect_uri&ui_locales=zh-CN`,
        );
        expect(response.headers.get('set-cookie')).toBeNull();
        expect(await isSignedIn(browser)).toBe(true);
      }
    });

    it('refuses a hint whose signature was modified, even with a registered URI, and signs nobody out', async () => {
      const { browser, idToken } = await signedInWithIdToken();
      const [header, payload, signature = ''] = idToken.split('.');
      const flipped = (signature.startsWith('A') ? 'B' : 'A') + signature.slice(1);
      for (const hint of [`${header}.${payload}.${flipped}`, `${header}.${payload}.`, 'not-a-jwt']) {
        const response = await logout(browser, {
          id_token_hint: hint,
          post_logout_redirect_uri: AFTER_LOGOUT,
          state: 's',
        });
        expect(response.headers.get('location')).toBe(
          `${server.baseUrl}/#/logout?error=invalid_id_token_hint`,
        );
        expect(await isSignedIn(browser)).toBe(true);
      }
    });

    it("refuses a client_id that is not the hint's audience, and signs nobody out", async () => {
      const { browser, idToken } = await signedInWithIdToken();
      const other = await server.ctx.apps.create({
        name: 'Other',
        emoji: '🔑',
        redirectUris: [REDIRECT_URI],
        postLogoutRedirectUris: ['https://other.example.edu/bye'],
      });
      const response = await logout(browser, {
        id_token_hint: idToken,
        client_id: other.app.clientId,
        post_logout_redirect_uri: 'https://other.example.edu/bye',
      });
      expect(response.headers.get('location')).toBe(`${server.baseUrl}/#/logout?error=client_mismatch`);
      expect(await isSignedIn(browser)).toBe(true);
    });

    it('asks on the page when there are no parameters at all, or only client_id', async () => {
      const { browser } = await signedInUser(server);
      const requests: Record<string, string>[] = [{}, { client_id: client.clientId }];
      for (const params of requests) {
        const response = await logout(browser, params);
        const location = new URL(response.headers.get('location') ?? '');
        expect(location.hash).toBe(`#/logout${params.client_id ? `?client_id=${client.clientId}` : ''}`);
        expect(await isSignedIn(browser)).toBe(true);
      }
      // The page's Sign out button: signed out, and no address to go to.
      const confirmed = await browser.call('POST', '/v1/account/logout', { client_id: client.clientId });
      expect((await json<{ data: unknown }>(confirmed)).data).toEqual({});
      expect(await isSignedIn(browser)).toBe(false);
    });

    it('without a hint, asks on the page #/logout and keeps the session until the user confirms', async () => {
      const { browser } = await signedInUser(server);
      const response = await logout(browser, {
        client_id: client.clientId,
        post_logout_redirect_uri: AFTER_LOGOUT,
        state: 's',
        ui_locales: 'zh-CN',
      });
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get('location') ?? '');
      expect(location.hash.startsWith('#/logout?')).toBe(true);
      expect(Object.fromEntries(new URLSearchParams(location.hash.slice('#/logout?'.length)))).toEqual({
        client_id: client.clientId,
        post_logout_redirect_uri: AFTER_LOGOUT,
        state: 's',
        ui_locales: 'zh-CN',
      });
      expect(await isSignedIn(browser)).toBe(true);

      // The page's Sign out button.
      const confirmed = await browser.call('POST', '/v1/account/logout', {
        client_id: client.clientId,
        post_logout_redirect_uri: AFTER_LOGOUT,
        state: 's',
      });
      expect((await json<{ data: unknown }>(confirmed)).data).toEqual({
        redirect_to: `${AFTER_LOGOUT}?state=s`,
      });
      expect(await isSignedIn(browser)).toBe(false);
    });

    it('asks when the hint names another user; refuses a forged signature or another issuer', async () => {
      const { browser } = await signedInUser(server);
      const { idToken: someoneElses } = await signedInWithIdToken();
      const { privateKey } = await generateKeyPair('ES256');
      const forged = await new SignJWT({ sub: '1' })
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(server.baseUrl)
        .setAudience(client.clientId)
        .sign(privateKey);
      const asked = await logout(browser, { id_token_hint: someoneElses });
      expect(new URL(asked.headers.get('location') ?? '').hash).toBe(`#/logout?client_id=${client.clientId}`);
      for (const hint of [forged, 'not-a-jwt']) {
        const response = await logout(browser, { id_token_hint: hint });
        expect(response.headers.get('location')).toBe(
          `${server.baseUrl}/#/logout?error=invalid_id_token_hint`,
        );
      }
      expect(await isSignedIn(browser)).toBe(true);
    });

    it('never redirects to an unregistered URI, nor when client_id and the hint disagree', async () => {
      const { idToken } = await signedInWithIdToken();
      const other = await server.ctx.apps.create({
        name: 'Other',
        emoji: '🔑',
        redirectUris: [REDIRECT_URI],
        postLogoutRedirectUris: ['https://other.example.edu/bye'],
      });
      const anonymous = new Browser(server);
      const cases: Record<string, string>[] = [
        { client_id: client.clientId, post_logout_redirect_uri: 'https://evil.example/' },
        { client_id: client.clientId, post_logout_redirect_uri: `${AFTER_LOGOUT}/more` },
        { post_logout_redirect_uri: AFTER_LOGOUT },
        {
          client_id: other.app.clientId,
          id_token_hint: idToken,
          post_logout_redirect_uri: 'https://other.example.edu/bye',
        },
      ];
      for (const params of cases) {
        const response = await logout(anonymous, params);
        expect(response.headers.get('location')).toMatch(
          new RegExp(
            `^${server.baseUrl}/#/logout\\?error=(unregistered_post_logout_redirect_uri|client_mismatch)$`,
          ),
        );
        const confirmed = await anonymous.call('POST', '/v1/account/logout', {
          ...(params.client_id !== undefined && { client_id: params.client_id }),
          post_logout_redirect_uri: params.post_logout_redirect_uri,
        });
        const data = (await json<{ data: Record<string, unknown> }>(confirmed)).data;
        if (params.id_token_hint === undefined) expect(data).toEqual({});
      }
    });

    it('sends a browser that is not signed in straight back to a registered URI', async () => {
      const response = await logout(new Browser(server), {
        client_id: client.clientId,
        post_logout_redirect_uri: AFTER_LOGOUT,
        state: 'abc',
      });
      expect(response.headers.get('location')).toBe(`${AFTER_LOGOUT}?state=abc`);
    });
  });

  describe('POST /v1/oauth2/logout', () => {
    it('goes on as a GET with the same parameters (a cross-site form post carries no Lax cookie)', async () => {
      const response = await server.fetch(`/v1/oauth2/logout`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://app.example.edu' },
        body: new URLSearchParams({ client_id: client.clientId, state: 'q', ignored: 'x' }).toString(),
        redirect: 'manual',
      });
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe(
        `${server.baseUrl}/v1/oauth2/logout?client_id=${client.clientId}&state=q`,
      );
    });
  });

  describe('apps’ logout URIs in the admin API', () => {
    it('registers post_logout_redirect_uris and backchannel_logout_uri with the redirect URI rules', async () => {
      const { browser: admin } = await signedInUser(server, 'admin');
      const created = await admin.call('POST', '/v1/admin/apps', {
        name: 'Wiki',
        emoji: '📖',
        redirect_uris: [REDIRECT_URI],
        post_logout_redirect_uris: ['https://wiki.example.edu/bye', 'http://localhost:8081/'],
        backchannel_logout_uri: 'https://wiki.example.edu/backchannel',
      });
      expect(created.status).toBe(200);
      const { app } = (await json<{ data: { app: Record<string, unknown> } }>(created)).data;
      expect(app).toMatchObject({
        post_logout_redirect_uris: ['https://wiki.example.edu/bye', 'http://localhost:8081/'],
        backchannel_logout_uri: 'https://wiki.example.edu/backchannel',
        backchannel_logout_last_attempt: null,
        backchannel_logout_pending: 0,
      });
      const path = `/v1/admin/apps/${String(app.client_id)}`;
      for (const bad of [
        { post_logout_redirect_uris: ['http://wiki.example.edu/bye'] },
        { post_logout_redirect_uris: ['https://wiki.example.edu/#x'] },
        { post_logout_redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) },
        { backchannel_logout_uri: 'http://wiki.example.edu/backchannel' },
        { backchannel_logout_uri: 'wiki' },
      ]) {
        const response = await admin.call('PATCH', path, bad);
        expect(response.status).toBe(400);
      }
      const cleared = await admin.call('PATCH', path, {
        post_logout_redirect_uris: [],
        backchannel_logout_uri: null,
      });
      expect((await json<{ data: { app: Record<string, unknown> } }>(cleared)).data.app).toMatchObject({
        post_logout_redirect_uris: [],
        backchannel_logout_uri: null,
      });
    });
  });
});
