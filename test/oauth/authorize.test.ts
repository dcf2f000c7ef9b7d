/**
 * docs/interface.md#authorization-page: the authorization endpoint, the consent page's `app-info` call and
 * its decision call (`POST /v1/oauth2/authorize`), validated in RFC order.
 */
import { describe, expect, it } from 'vitest';
import { Browser, json } from '../helpers/http.js';
import { type DatabaseSuiteOptions, describeOnDatabases } from '../helpers/fixture.js';
import {
  authorizeRedirect,
  obtainCode,
  pkcePair,
  postAuthorize,
  REDIRECT_URI,
  registerClient,
  signedInUser,
} from './support.js';

interface Envelope<T = Record<string, unknown>> {
  code: number;
  msg: string;
  data: T;
}

async function envelope(response: Response): Promise<{ status: number } & Envelope> {
  return { status: response.status, ...(await json<Envelope>(response)) };
}

/** The client registers three redirect URIs: one with a query, one on a loopback port. */
const SUITE: DatabaseSuiteOptions = {
  transport: 'inject',
  client: {
    redirectUris: [REDIRECT_URI, 'https://app.example.edu/cb?tenant=a b', 'http://127.0.0.1:9000/cb'],
  },
  user: 'member',
};

describeOnDatabases('authorization', SUITE, (fixture) => {
  const { server, client, user } = fixture;
  const { uin, browser } = user;

  describe('GET /v1/oauth2/authorize', () => {
    it('answers 302 to the page with the same query, byte for byte', async () => {
      const query = `client_id=${client.clientId}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&state=a%20b%2Bc&response_type=code&scope=openid`;
      const response = await server.fetch(`/v1/oauth2/authorize?${query}`, { redirect: 'manual' });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${server.baseUrl}/#/auth?${query}`);
    });

    it('sends no CORS headers, even to a cross-origin request', async () => {
      const response = await server.fetch(`/v1/oauth2/authorize?client_id=x`, {
        redirect: 'manual',
        headers: { origin: 'https://evil.example' },
      });
      const cors = [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));
      expect(cors).toEqual([]);
    });

    it('redirects to the bare page when there is no query', async () => {
      const response = await server.fetch(`/v1/oauth2/authorize`, { redirect: 'manual' });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${server.baseUrl}/#/auth`);
    });
  });

  describe('GET /v1/oauth2/app-info', () => {
    const appInfo = (who: Browser | undefined, clientId: string, redirectUri: string): Promise<Response> => {
      const path = `/v1/oauth2/app-info?client_id=${encodeURIComponent(clientId)}&redirect_uri=${encodeURIComponent(redirectUri)}`;
      return who ? who.call('GET', path) : server.fetch(path);
    };

    it('answers the app for a registered redirect URI, without a session', async () => {
      expect(await envelope(await appInfo(undefined, client.clientId, REDIRECT_URI))).toEqual({
        status: 200,
        code: 0,
        msg: 'ok',
        data: {
          client_id: client.clientId,
          name: 'Library',
          emoji: '📚',
          consented: false,
          shared_computer: false,
        },
      });
    });

    it('says consented only once the signed-in user has authorized the app', async () => {
      const other = await signedInUser(server);
      expect(
        (await envelope(await appInfo(other.browser, client.clientId, REDIRECT_URI))).data.consented,
      ).toBe(false);
      await obtainCode(other.browser, client);
      expect(
        (await envelope(await appInfo(other.browser, client.clientId, REDIRECT_URI))).data.consented,
      ).toBe(true);
      expect((await envelope(await appInfo(undefined, client.clientId, REDIRECT_URI))).data.consented).toBe(
        false,
      );
    });

    it('refuses an unknown client with 400 code 3', async () => {
      const answer = await envelope(await appInfo(undefined, 'AAAAAAAAAAAAAAAA', REDIRECT_URI));
      expect(answer).toMatchObject({ status: 400, code: 3, data: {} });
    });

    it('refuses a redirect URI that is not exactly a registered one with 400 code 3', async () => {
      for (const uri of [
        `${REDIRECT_URI}/`,
        `${REDIRECT_URI}?x=1`,
        REDIRECT_URI.toUpperCase(),
        'https://evil.example/cb',
      ]) {
        expect(await envelope(await appInfo(undefined, client.clientId, uri))).toMatchObject({
          status: 400,
          code: 3,
        });
      }
    });

    it('refuses a disabled client with 400 code 3', async () => {
      const disabled = await registerClient(server);
      await server.ctx.store.apps.update(disabled.clientId, { disabled: true });
      expect(await envelope(await appInfo(undefined, disabled.clientId, REDIRECT_URI))).toMatchObject({
        status: 400,
        code: 3,
      });
    });
  });

  describe('POST /v1/oauth2/authorize', () => {
    const base = (): Record<string, string> => ({ client_id: client.clientId, redirect_uri: REDIRECT_URI });

    it('requires a session: 401 code -1', async () => {
      const anonymous = new Browser(server);
      expect(await envelope(await postAuthorize(anonymous, base()))).toMatchObject({ status: 401, code: -1 });
    });

    it('refuses a cross-origin call (CSRF): 403 code 4', async () => {
      const response = await browser.call(
        'POST',
        '/v1/oauth2/authorize',
        { ...base(), decision: 'allow' },
        { origin: 'https://evil.example' },
      );
      expect(await envelope(response)).toMatchObject({ status: 403, code: 4 });
    });

    it('answers redirect_uri?code=…&state=…&iss=… and nothing else on allow', async () => {
      const url = await authorizeRedirect(browser, { ...base(), state: 'xyz' });
      expect(url.origin + url.pathname).toBe(REDIRECT_URI);
      expect([...url.searchParams.keys()]).toEqual(['code', 'state', 'iss']);
      expect(url.searchParams.get('state')).toBe('xyz');
      expect(url.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{51}$/);
    });

    it('omits state when none was sent, and echoes it unchanged (encoded properly) when sent', async () => {
      expect([...(await authorizeRedirect(browser, base())).searchParams.keys()]).toEqual(['code', 'iss']);
      const state = 'a b&c=d/é+%';
      expect((await authorizeRedirect(browser, { ...base(), state })).searchParams.get('state')).toBe(state);
    });

    it('keeps the query the registered redirect URI already has', async () => {
      const url = await authorizeRedirect(browser, {
        client_id: client.clientId,
        redirect_uri: 'https://app.example.edu/cb?tenant=a b',
        state: 's',
      });
      expect(url.searchParams.get('tenant')).toBe('a b');
      expect([...url.searchParams.keys()]).toEqual(['tenant', 'code', 'state', 'iss']);
    });

    it('answers redirect_uri?error=access_denied&state=… on deny and issues no code', async () => {
      const url = await authorizeRedirect(browser, { ...base(), state: 'xyz', decision: 'deny' });
      expect(url.searchParams.get('error')).toBe('access_denied');
      expect(url.searchParams.get('state')).toBe('xyz');
      expect(url.searchParams.get('code')).toBeNull();
      expect(url.searchParams.get('error_description')).toBeTruthy();
    });

    it('refuses an unknown client with 400 code 3 and no URL', async () => {
      const answer = await envelope(
        await postAuthorize(browser, { ...base(), client_id: 'AAAAAAAAAAAAAAAA' }),
      );
      expect(answer).toMatchObject({ status: 400, code: 3, data: {} });
    });

    it('refuses an unregistered redirect URI with 400 code 3 and no URL, even with other errors', async () => {
      const answer = await envelope(
        await postAuthorize(browser, {
          ...base(),
          redirect_uri: 'https://evil.example/cb',
          response_type: 'token',
        }),
      );
      expect(answer).toMatchObject({ status: 400, code: 3, data: {} });
    });

    it('refuses a missing redirect_uri with 400 code 3', async () => {
      expect(await envelope(await postAuthorize(browser, { client_id: client.clientId }))).toMatchObject({
        status: 400,
        code: 3,
      });
    });

    it('refuses authorization for an imported app without redirect URIs (400 code 3)', async () => {
      const imported = await registerClient(server);
      await server.ctx.store.apps.update(imported.clientId, { redirectUris: [] });
      const answer = await envelope(
        await postAuthorize(browser, { client_id: imported.clientId, redirect_uri: REDIRECT_URI }),
      );
      expect(answer).toMatchObject({ status: 400, code: 3 });
    });

    it('redirects unsupported_response_type for a response_type other than code', async () => {
      const url = await authorizeRedirect(browser, { ...base(), response_type: 'token', state: 's' });
      expect(url.searchParams.get('error')).toBe('unsupported_response_type');
      expect(url.searchParams.get('state')).toBe('s');
    });

    it('accepts response_type=code and an absent response_type alike', async () => {
      expect(
        (await authorizeRedirect(browser, { ...base(), response_type: 'code' })).searchParams.get('code'),
      ).toBeTruthy();
      expect((await authorizeRedirect(browser, base())).searchParams.get('code')).toBeTruthy();
    });

    it('redirects invalid_request for a code_challenge_method other than S256 or plain', async () => {
      const url = await authorizeRedirect(browser, {
        ...base(),
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S512',
      });
      expect(url.searchParams.get('error')).toBe('invalid_request');
    });

    it('redirects invalid_request for a code_challenge_method without a code_challenge', async () => {
      const url = await authorizeRedirect(browser, { ...base(), code_challenge_method: 'S256' });
      expect(url.searchParams.get('error')).toBe('invalid_request');
    });

    it('redirects invalid_request for a code_challenge outside RFC 7636 §4.2 (charset, 43–128 characters)', async () => {
      for (const challenge of ['short', 'a'.repeat(129), `${'a'.repeat(42)}!`]) {
        const url = await authorizeRedirect(browser, {
          ...base(),
          code_challenge: challenge,
          code_challenge_method: 'S256',
        });
        expect(url.searchParams.get('error')).toBe('invalid_request');
      }
    });

    it('stores plain as the method when a challenge comes without one (RFC 7636 §4.3)', async () => {
      const code = await obtainCode(browser, client, { code_challenge: 'p'.repeat(43) });
      const { credentialKey } = await import('../../src/oauth/credentials.js');
      const stored = await server.ctx.store.codes.find(credentialKey(code));
      expect(stored).toMatchObject({ codeChallenge: 'p'.repeat(43), codeChallengeMethod: 'plain' });
    });

    it('redirects invalid_scope when no requested scope is supported, or a scope is malformed', async () => {
      expect(
        (await authorizeRedirect(browser, { ...base(), scope: 'phone' })).searchParams.get('error'),
      ).toBe('invalid_scope');
      expect(
        (await authorizeRedirect(browser, { ...base(), scope: 'openid "x"' })).searchParams.get('error'),
      ).toBe('invalid_scope');
    });

    it('grants the supported scopes and leaves out unknown ones', async () => {
      const code = await obtainCode(browser, client, { scope: 'openid phone openid offline_access' });
      const { credentialKey } = await import('../../src/oauth/credentials.js');
      expect((await server.ctx.store.codes.find(credentialKey(code)))?.scope).toBe('openid offline_access');
    });

    it('binds the code to client, user, redirect_uri, scope, nonce, challenge and sign-in time, for 10 minutes', async () => {
      const { challenge } = pkcePair();
      const code = await obtainCode(browser, client, {
        scope: 'openid',
        nonce: 'n-1',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      const { credentialKey } = await import('../../src/oauth/credentials.js');
      const stored = await server.ctx.store.codes.find(credentialKey(code));
      expect(stored).toMatchObject({
        clientId: client.clientId,
        uin,
        redirectUri: REDIRECT_URI,
        scope: 'openid',
        nonce: 'n-1',
        codeChallenge: challenge,
        codeChallengeMethod: 'S256',
        usedAt: null,
      });
      expect(stored!.expiresAt - stored!.createdAt).toBe(600_000);
      expect(stored!.authTime).toBeLessThanOrEqual(stored!.createdAt);
    });

    it('records the consent on allow', async () => {
      const user = await signedInUser(server);
      await obtainCode(user.browser, client, { scope: 'openid' });
      expect(await server.ctx.store.consents.find(user.uin, client.clientId)).toMatchObject({
        scope: 'openid',
      });
    });

    it('ignores unrecognized parameters (RFC 6749 §3.1)', async () => {
      const url = await authorizeRedirect(browser, { ...base(), prompt: 'consent', foo: 'bar' });
      expect(url.searchParams.get('code')).toBeTruthy();
    });

    it('rejects a known parameter of the wrong type with 400 code 1', async () => {
      expect(await envelope(await postAuthorize(browser, { ...base(), state: 42 }))).toMatchObject({
        status: 400,
        code: 1,
      });
    });

    it('never caches the answer carrying a code', async () => {
      const response = await postAuthorize(browser, base());
      expect(response.headers.get('cache-control')).toBe('no-store');
    });
  });
});
