/**
 * docs/interface.md#authorization-page and docs/security.md: the OpenID Connect parts of the authorization
 * request — `prompt`, `max_age`, `iss` in every response (RFC 9207), the form POST, `response_type` with
 * `openid`, request objects — at the GET endpoint, the form POST and the page's JSON call.
 */
import { describe, expect, it } from 'vitest';
import { describeOnDatabases } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import {
  authorizeRedirect,
  obtainCode,
  PASSWORD,
  postAuthorize,
  REDIRECT_URI,
  signedInUser,
} from './support.js';

/** A clock the test moves forward, so sign-in times differ by whole seconds (auth_time is in seconds). */
let offsetMs = 0;
const clock = { now: () => Date.now() + offsetMs };

describeOnDatabases(
  'the authorization request',
  { transport: 'inject', clock, client: true },
  ({ server, client }) => {
    const query = (extra: Record<string, string>): string =>
      new URLSearchParams({ client_id: client.clientId, redirect_uri: REDIRECT_URI, ...extra }).toString();

    /** GET /v1/oauth2/authorize as a browser (with its cookie, when signed in); answers the Location. */
    async function getAuthorize(who: Browser | undefined, extra: Record<string, string>): Promise<URL> {
      const path = `/v1/oauth2/authorize?${query(extra)}`;
      const response = who ? await who.call('GET', path) : await server.fetch(path, { redirect: 'manual' });
      expect(response.status).toBe(302);
      return new URL(response.headers.get('location')!);
    }

    const authTimeOf = async (code: string): Promise<number | undefined> => {
      const { credentialKey } = await import('../../src/oauth/credentials.js');
      return (await server.ctx.store.codes.find(credentialKey(code)))?.authTime;
    };

    describe('GET /v1/oauth2/authorize', () => {
      it('answers prompt=none for a signed-out user straight to the app with login_required, state and iss', async () => {
        const location = await getAuthorize(undefined, { prompt: 'none', state: 's1' });
        expect(location.origin + location.pathname).toBe(REDIRECT_URI);
        expect(Object.fromEntries(location.searchParams)).toMatchObject({
          error: 'login_required',
          state: 's1',
          iss: server.baseUrl,
        });
      });

      it('answers prompt=none without consent with consent_required', async () => {
        const { browser } = await signedInUser(server);
        const location = await getAuthorize(browser, { prompt: 'none', state: 's2' });
        expect(location.origin + location.pathname).toBe(REDIRECT_URI);
        expect(location.searchParams.get('error')).toBe('consent_required');
        expect(location.searchParams.get('iss')).toBe(server.baseUrl);
      });

      it('answers prompt=none with a remembered consent with a code, no page', async () => {
        const { browser } = await signedInUser(server);
        await obtainCode(browser, client);
        const location = await getAuthorize(browser, { prompt: 'none', state: 's3' });
        expect(location.origin + location.pathname).toBe(REDIRECT_URI);
        expect(location.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{51}$/);
        expect([...location.searchParams.keys()]).toEqual(['code', 'state', 'iss']);
      });

      it('answers prompt=none for a consent that does not cover the scope with consent_required', async () => {
        const { browser } = await signedInUser(server);
        await obtainCode(browser, client);
        const location = await getAuthorize(browser, {
          prompt: 'none',
          scope: 'openid offline_access',
          response_type: 'code',
        });
        expect(location.searchParams.get('error')).toBe('consent_required');
      });

      it('never redirects prompt=none to an unknown client or unregistered URI: the page shows the error', async () => {
        const unverifiable: Record<string, string>[] = [
          { client_id: 'AAAAAAAAAAAAAAAA' },
          { redirect_uri: 'https://evil.example/cb' },
        ];
        for (const extra of unverifiable) {
          const location = await getAuthorize(undefined, { prompt: 'none', ...extra });
          expect(location.origin).toBe(server.baseUrl);
          expect(location.hash).toMatch(/^#\/auth\?/);
        }
      });

      it('redirects invalid_request for an unknown prompt value or none with another value', async () => {
        for (const prompt of ['sometimes', 'none login', 'none consent']) {
          const location = await getAuthorize(undefined, { prompt, state: 's' });
          expect(location.origin + location.pathname).toBe(REDIRECT_URI);
          expect(location.searchParams.get('error')).toBe('invalid_request');
          expect(location.searchParams.get('iss')).toBe(server.baseUrl);
        }
      });

      it('redirects invalid_request for scope openid without response_type; legacy requests keep code', async () => {
        const openid = await getAuthorize(undefined, { scope: 'openid', state: 's' });
        expect(openid.origin + openid.pathname).toBe(REDIRECT_URI);
        expect(openid.searchParams.get('error')).toBe('invalid_request');
        const legacy = await getAuthorize(undefined, { state: 's' });
        expect(legacy.origin).toBe(server.baseUrl);
        expect(legacy.hash).toBe(`#/auth?${query({ state: 's' })}`);
      });

      it('redirects request_not_supported and request_uri_not_supported (request objects)', async () => {
        const request = await getAuthorize(undefined, { request: 'eyJhbGciOiJub25lIn0.e30.', state: 's' });
        expect(Object.fromEntries(request.searchParams)).toMatchObject({
          error: 'request_not_supported',
          state: 's',
          iss: server.baseUrl,
        });
        const requestUri = await getAuthorize(undefined, { request_uri: 'https://app.example.edu/r/1' });
        expect(requestUri.searchParams.get('error')).toBe('request_uri_not_supported');
      });

      it('redirects invalid_request for a malformed max_age', async () => {
        const location = await getAuthorize(undefined, { max_age: '-1' });
        expect(location.searchParams.get('error')).toBe('invalid_request');
      });
    });

    describe('POST /v1/oauth2/authorize (form)', () => {
      it('is served like the GET: 303 to it with the same parameters, even from another site', async () => {
        const params = { client_id: client.clientId, redirect_uri: REDIRECT_URI, state: 'a b', nonce: 'n' };
        const response = await server.fetch(`/v1/oauth2/authorize`, {
          method: 'POST',
          redirect: 'manual',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            origin: 'https://app.example.edu',
            'sec-fetch-site': 'cross-site',
          },
          body: new URLSearchParams(params).toString(),
        });
        expect(response.status).toBe(303);
        const location = new URL(response.headers.get('location')!);
        expect(location.origin + location.pathname).toBe(`${server.baseUrl}/v1/oauth2/authorize`);
        expect(Object.fromEntries(location.searchParams)).toEqual(params);
        // …and the GET it leads to reaches the app (here: prompt-less, the page).
        const page = await server.fetch(location, { redirect: 'manual' });
        expect(page.headers.get('location')).toBe(`${server.baseUrl}/#/auth${location.search}`);
      });

      it('still refuses a cross-origin JSON call (the page call is CSRF-protected)', async () => {
        const { browser } = await signedInUser(server);
        const response = await browser.call(
          'POST',
          '/v1/oauth2/authorize',
          { client_id: client.clientId, redirect_uri: REDIRECT_URI, decision: 'allow' },
          { origin: 'https://evil.example' },
        );
        expect(response.status).toBe(403);
      });
    });

    describe('POST /v1/oauth2/authorize (page call)', () => {
      it('puts iss in the success and in the error response (RFC 9207)', async () => {
        const { browser } = await signedInUser(server);
        const allowed = await authorizeRedirect(browser, {
          client_id: client.clientId,
          redirect_uri: REDIRECT_URI,
        });
        expect(allowed.searchParams.get('iss')).toBe(server.baseUrl);
        const denied = await authorizeRedirect(browser, {
          client_id: client.clientId,
          redirect_uri: REDIRECT_URI,
          decision: 'deny',
        });
        expect(denied.searchParams.get('error')).toBe('access_denied');
        expect(denied.searchParams.get('iss')).toBe(server.baseUrl);
      });

      it('answers prompt=none for a signed-out visitor with login_required instead of 401', async () => {
        const url = await authorizeRedirect(new Browser(server), {
          client_id: client.clientId,
          redirect_uri: REDIRECT_URI,
          prompt: 'none',
        });
        expect(url.searchParams.get('error')).toBe('login_required');
      });

      it('answers prompt=none without consent with consent_required, even with decision allow', async () => {
        const { browser } = await signedInUser(server);
        const url = await authorizeRedirect(browser, {
          client_id: client.clientId,
          redirect_uri: REDIRECT_URI,
          prompt: 'none',
        });
        expect(url.searchParams.get('error')).toBe('consent_required');
      });

      it('makes the user sign in again for prompt=login, and auth_time is then new', async () => {
        const { uin, browser } = await signedInUser(server);
        const first = await obtainCode(browser, client);
        offsetMs += 5_000;
        const request = { client_id: client.clientId, redirect_uri: REDIRECT_URI, prompt: 'login' };
        const again = await postAuthorize(browser, request);
        expect({ status: again.status, code: (await json(again)).code }).toEqual({ status: 401, code: -1 });
        expect((await browser.login(uin, PASSWORD)).status).toBe(200);
        const second = await obtainCode(browser, client, request);
        expect((await authTimeOf(second))! - (await authTimeOf(first))!).toBeGreaterThanOrEqual(5_000);
        // The sign-in counted once: the same prompt=login request asks again.
        const replay = await postAuthorize(browser, request);
        expect(replay.status).toBe(401);
      });

      it('makes the user sign in again when the sign-in is older than max_age', async () => {
        const { uin, browser } = await signedInUser(server);
        offsetMs += 61_000;
        const request = { client_id: client.clientId, redirect_uri: REDIRECT_URI, max_age: '60' };
        expect((await postAuthorize(browser, request)).status).toBe(401);
        // prompt=none cannot ask: login_required.
        const none = await authorizeRedirect(browser, { ...request, prompt: 'none' });
        expect(none.searchParams.get('error')).toBe('login_required');
        expect((await browser.login(uin, PASSWORD)).status).toBe(200);
        const code = await obtainCode(browser, client, request);
        expect(clock.now() - (await authTimeOf(code))!).toBeLessThan(60_000);
        // A sign-in younger than max_age is enough.
        expect(await obtainCode(browser, client, { max_age: '3600' })).toBeTruthy();
      });

      it('accepts prompt=consent (the page shows the consent screen) and issues a code on allow', async () => {
        const { browser } = await signedInUser(server);
        expect(await obtainCode(browser, client, { prompt: 'consent' })).toBeTruthy();
      });

      it('redirects invalid_request for scope openid without response_type', async () => {
        const { browser } = await signedInUser(server);
        const url = await authorizeRedirect(browser, {
          client_id: client.clientId,
          redirect_uri: REDIRECT_URI,
          scope: 'openid',
          response_type: undefined,
        });
        expect(url.searchParams.get('error')).toBe('invalid_request');
        expect(url.searchParams.get('code')).toBeNull();
      });

      it('redirects request_not_supported and request_uri_not_supported', async () => {
        const { browser } = await signedInUser(server);
        const base = { client_id: client.clientId, redirect_uri: REDIRECT_URI };
        expect(
          (await authorizeRedirect(browser, { ...base, request: 'x.y.z' })).searchParams.get('error'),
        ).toBe('request_not_supported');
        expect(
          (await authorizeRedirect(browser, { ...base, request_uri: 'urn:x' })).searchParams.get('error'),
        ).toBe('request_uri_not_supported');
      });
    });

    describe('GET /v1/oauth2/app-info', () => {
      it('says how many days an app asking for offline_access can stay signed in (REFRESH_TOKEN_TTL)', async () => {
        const path = `/v1/oauth2/app-info?${query({ scope: 'openid offline_access' })}`;
        const body = await json<{ data: Record<string, unknown> }>(await server.fetch(path));
        expect(body.data.stays_signed_in_days).toBe(30);
        const without = await json<{ data: Record<string, unknown> }>(
          await server.fetch(`/v1/oauth2/app-info?${query({ scope: 'openid' })}`),
        );
        expect(without.data).not.toHaveProperty('stays_signed_in_days');
      });
    });
  },
);
