/**
 * docs/interface.md#response-modes: OAuth 2.0 Form Post Response Mode. Every way the authorization flow
 * answers the app — the page's call (consent, deny, a remembered consent), prompt=none at the GET endpoint,
 * the form POST, and the errors that are redirected — delivers by form_post when the app asks for it: a page
 * whose form posts code/state/iss (or error/error_description/state/iss) to the redirect URI, submitted by
 * a script that only its nonce lets run. Over real HTTP: the page is parsed and its form submitted to a real
 * listener standing in for the app.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOnDatabases } from '../helpers/fixture.js';
import { type Browser, json } from '../helpers/http.js';
import { LogoutReceiver } from '../helpers/logout-receiver.js';
import {
  type Client,
  obtainCode,
  postAuthorize,
  registerClient,
  signedInUser,
  basic,
  postForm,
} from './support.js';

/** RFC 6749 §5.2: error_description = 1*( %x20-21 / %x23-5B / %x5D-7E ). */
const RFC_6749_DESCRIPTION = /^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/;

interface FormPostPage {
  readonly status: number;
  readonly headers: Headers;
  readonly html: string;
  /** The form's action. */
  readonly action: string;
  /** The hidden fields, in order. */
  readonly fields: [string, string][];
}

function unescapeHtml(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_match, code: string) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Reads the one form of a form_post page: its action and its hidden fields. */
async function parseFormPost(response: Response): Promise<FormPostPage> {
  const html = await response.text();
  const forms = [...html.matchAll(/<form\b([^>]*)>/g)];
  expect(forms, `${response.status} ${html}`).toHaveLength(1);
  const formTag = forms[0]?.[1] ?? '';
  expect(formTag).toMatch(/\bmethod="post"/);
  const action = unescapeHtml(/\baction="([^"]*)"/.exec(formTag)?.[1] ?? '');
  const fields = [...html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map(
    (match): [string, string] => [unescapeHtml(match[1] ?? ''), unescapeHtml(match[2] ?? '')],
  );
  return { status: response.status, headers: response.headers, html, action, fields };
}

/** The page's CSP allows its script only by the nonce the script carries, and posts only to the app. */
function expectFormPostPolicy(page: FormPostPage, redirectUri: string): void {
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8/);
  expect(page.headers.get('cache-control')).toBe('no-store');
  const policy = page.headers.get('content-security-policy') ?? '';
  const directives = new Map(
    policy.split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/);
      return [name, values] as const;
    }),
  );
  const scriptNonce = /<script nonce="([^"]+)">/.exec(page.html)?.[1];
  expect(scriptNonce).toMatch(/^[A-Za-z0-9+/=]{22,}$/);
  expect(directives.get('script-src')).toEqual([`'nonce-${scriptNonce}'`]);
  expect(directives.get('default-src')).toEqual(["'none'"]);
  expect(directives.get('form-action')).toEqual([new URL(redirectUri).origin]);
  expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
  // No script anywhere but the nonce'd one; a browser without script gets a button.
  expect([...page.html.matchAll(/<script\b/g)]).toHaveLength(1);
  expect(page.html).toMatch(/<noscript>[\s\S]*<button type="submit">[\s\S]*<\/noscript>/);
}

/** Submits the form as the browser would: a form-encoded POST of the hidden fields to the action. */
async function submit(page: FormPostPage, app: LogoutReceiver): Promise<URLSearchParams> {
  const before = app.received.length;
  const response = await fetch(page.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(page.fields).toString(),
  });
  expect(response.status).toBe(200);
  const [posted] = (await app.waitFor(before + 1)).slice(before);
  expect(posted?.contentType).toBe('application/x-www-form-urlencoded');
  return new URLSearchParams(posted?.body ?? '');
}

describeOnDatabases(
  'response_mode=form_post',
  { transport: 'inject', manualClock: true },
  ({ server, clock }) => {
    const app = new LogoutReceiver();
    let client: Client;
    let redirectUri: string;

    beforeAll(async () => {
      await app.start();
      redirectUri = `http://127.0.0.1:${app.port}/callback?tenant=1`;
      client = await registerClient(server, { redirectUris: [redirectUri] });
    });
    afterAll(() => app.stop());

    const base = (extra: Record<string, string> = {}): Record<string, string> => ({
      client_id: client.clientId,
      redirect_uri: redirectUri,
      response_mode: 'form_post',
      ...extra,
    });

    /** The page's call, then the URL it answers followed as the page does (window.location). */
    async function throughPage(browser: Browser, body: Record<string, unknown>): Promise<FormPostPage> {
      const response = await postAuthorize(browser, body);
      expect(response.status).toBe(200);
      const { data } = await json<{ data: { redirect_to: string } }>(response);
      const target = new URL(data.redirect_to);
      // The code never shows in a URL: the page goes to this server's form page, with the response sealed.
      expect(target.origin + target.pathname).toBe(`${server.baseUrl}/v1/oauth2/authorize/form-post`);
      expect(data.redirect_to).not.toMatch(/code=|state=/);
      return parseFormPost(await browser.call('GET', target.pathname + target.search));
    }

    async function getAuthorize(
      browser: Browser | undefined,
      params: Record<string, string>,
    ): Promise<Response> {
      const path = `/v1/oauth2/authorize?${new URLSearchParams(params)}`;
      return browser ? browser.call('GET', path) : server.fetch(path, { redirect: 'manual' });
    }

    it('lists form_post with query in response_modes_supported', async () => {
      for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
        const metadata = await json<{ response_modes_supported: string[] }>(await server.fetch(path));
        expect(metadata.response_modes_supported).toEqual(['query', 'form_post']);
      }
    });

    it('posts code, state and iss to the redirect URI after consent, and the code is exchanged', async () => {
      const { browser } = await signedInUser(server);
      const page = await throughPage(browser, {
        ...base({ state: 'a "quoted" <state> & more' }),
        decision: 'allow',
      });
      expectFormPostPolicy(page, redirectUri);
      expect(page.action).toBe(redirectUri);
      expect(page.fields.map(([name]) => name)).toEqual(['code', 'state', 'iss']);
      const posted = await submit(page, app);
      expect(posted.get('state')).toBe('a "quoted" <state> & more');
      expect(posted.get('iss')).toBe(server.baseUrl);
      const token = await postForm(
        server,
        '/v1/oauth2/token',
        { grant_type: 'authorization_code', code: posted.get('code') ?? '', redirect_uri: redirectUri },
        basic(client.clientId, client.clientSecret),
      );
      expect(token.status).toBe(200);
    });

    it('posts access_denied, error_description, state and iss on deny, and issues no code', async () => {
      const { browser } = await signedInUser(server);
      const page = await throughPage(browser, { ...base({ state: 'd1' }), decision: 'deny' });
      expectFormPostPolicy(page, redirectUri);
      expect(page.fields.map(([name]) => name)).toEqual(['error', 'error_description', 'state', 'iss']);
      const posted = await submit(page, app);
      expect(posted.get('error')).toBe('access_denied');
      expect(posted.get('state')).toBe('d1');
      expect(posted.has('code')).toBe(false);
    });

    it('answers a remembered consent (straight back to the app) by form_post too', async () => {
      const { browser } = await signedInUser(server);
      await throughPage(browser, { ...base(), decision: 'allow' });
      const response = await browser.call('POST', '/v1/oauth2/authorize', {
        ...base({ state: 'again' }),
        decision: 'allow',
        remembered: true,
      });
      const { data } = await json<{ data: { redirect_to: string } }>(response);
      const target = new URL(data.redirect_to);
      const answer = await browser.call('GET', target.pathname + target.search);
      const page = await parseFormPost(answer);
      expectFormPostPolicy(page, redirectUri);
      expect(Object.fromEntries(page.fields)).toMatchObject({ state: 'again', iss: server.baseUrl });
      expect(Object.fromEntries(page.fields).code).toMatch(/^[A-Za-z0-9_-]{51}$/);
    });

    it('answers prompt=none at the GET endpoint with the form itself: login_required when signed out', async () => {
      const page = await parseFormPost(await getAuthorize(undefined, base({ prompt: 'none', state: 'n1' })));
      expectFormPostPolicy(page, redirectUri);
      expect(Object.fromEntries(page.fields)).toMatchObject({ error: 'login_required', state: 'n1' });
      expect((await submit(page, app)).get('error')).toBe('login_required');
    });

    it('answers prompt=none with a remembered consent with a code by form post, no page', async () => {
      const { browser } = await signedInUser(server);
      await obtainCode(browser, client, { redirect_uri: redirectUri });
      const page = await parseFormPost(await getAuthorize(browser, base({ prompt: 'none', state: 'n2' })));
      expectFormPostPolicy(page, redirectUri);
      expect(page.fields.map(([name]) => name)).toEqual(['code', 'state', 'iss']);
    });

    it('serves a form POST to the authorization endpoint the same way (303, then the form)', async () => {
      const { browser } = await signedInUser(server);
      await obtainCode(browser, client, { redirect_uri: redirectUri });
      const posted = await browser.call(
        'POST',
        '/v1/oauth2/authorize',
        new URLSearchParams(
          base({ prompt: 'none', state: 'p1', scope: 'openid', response_type: 'code' }),
        ).toString(),
        { 'content-type': 'application/x-www-form-urlencoded' },
      );
      expect(posted.status).toBe(303);
      const location = new URL(posted.headers.get('location') ?? '');
      const page = await parseFormPost(await browser.call('GET', location.pathname + location.search));
      expectFormPostPolicy(page, redirectUri);
      expect(Object.fromEntries(page.fields)).toMatchObject({ state: 'p1' });
    });

    it('posts errors found after the redirect URI is verified, whichever check finds them', async () => {
      const cases: [Record<string, string>, string][] = [
        [{ scope: 'openid' }, 'invalid_request'],
        [{ response_type: 'token' }, 'unsupported_response_type'],
        [{ response_type: 'code', code_challenge: 'short' }, 'invalid_request'],
        [{ response_type: 'code', request: 'eyJhbGciOiJub25lIn0.e30.' }, 'request_not_supported'],
      ];
      for (const [extra, error] of cases) {
        const page = await parseFormPost(await getAuthorize(undefined, base({ ...extra, state: 'e' })));
        expectFormPostPolicy(page, redirectUri);
        const fields = Object.fromEntries(page.fields);
        expect(fields, JSON.stringify(extra)).toMatchObject({ error, state: 'e', iss: server.baseUrl });
        expect(fields.error_description).toMatch(RFC_6749_DESCRIPTION);
      }
    });

    it('refuses an unknown response_mode with invalid_request, redirected in the query', async () => {
      for (const mode of ['fragment', 'form_post.jwt', 'FORM_POST']) {
        const response = await getAuthorize(undefined, base({ response_mode: mode, state: 'u' }));
        expect(response.status).toBe(302);
        const location = new URL(response.headers.get('location') ?? '');
        expect(location.origin + location.pathname).toBe(redirectUri.split('?')[0]);
        expect(location.searchParams.get('error')).toBe('invalid_request');
        expect(location.searchParams.get('state')).toBe('u');
      }
    });

    it('never posts to an unknown client or unregistered redirect URI: the page shows the error', async () => {
      const unverifiable: Record<string, string>[] = [
        { client_id: 'AAAAAAAAAAAAAAAA' },
        { redirect_uri: 'https://evil.example/cb' },
      ];
      for (const extra of unverifiable) {
        const response = await getAuthorize(undefined, { ...base({ prompt: 'none' }), ...extra });
        expect(response.status).toBe(302);
        expect(response.headers.get('location')).toMatch(new RegExp(`^${server.baseUrl}/#/auth\\?`));
      }
    });

    it('keeps the query response for response_mode=query', async () => {
      const { browser } = await signedInUser(server);
      const response = await postAuthorize(browser, {
        ...base({ response_mode: 'query', state: 'q' }),
        decision: 'allow',
      });
      const target = new URL((await json<{ data: { redirect_to: string } }>(response)).data.redirect_to);
      expect(target.origin + target.pathname).toBe(redirectUri.split('?')[0]);
      expect([...target.searchParams.keys()]).toEqual(['tenant', 'code', 'state', 'iss']);
    });

    it('posts nothing once the sealed response is two minutes old (a page reopened from the history)', async () => {
      const { browser } = await signedInUser(server);
      const response = await postAuthorize(browser, { ...base(), decision: 'allow' });
      const target = new URL((await json<{ data: { redirect_to: string } }>(response)).data.redirect_to);
      clock.advance(2 * 60_000);
      const answer = await browser.call('GET', target.pathname + target.search);
      expect(answer.status).toBe(400);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(await answer.text()).not.toMatch(/<form/);
    });

    it('posts nothing for a damaged or forged sealed response', async () => {
      const { browser } = await signedInUser(server);
      const response = await postAuthorize(browser, { ...base(), decision: 'allow' });
      const target = new URL((await json<{ data: { redirect_to: string } }>(response)).data.redirect_to);
      const sealed = target.searchParams.get('response') ?? '';
      const damaged = sealed.slice(0, -4) + (sealed.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      for (const value of [damaged, 'enc:v1:AAAA', 'x']) {
        const answer = await browser.call(
          'GET',
          `/v1/oauth2/authorize/form-post?${new URLSearchParams({ response: value })}`,
        );
        expect(answer.status).toBe(400);
        expect(await answer.text()).not.toMatch(/<form/);
      }
    });
  },
);
