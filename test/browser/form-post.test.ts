/**
 * response_mode=form_post (docs/interface.md#response-modes) in Chromium against the real server: the browser
 * goes through the authorization endpoint and the page, and the app — a real HTTP server on another origin —
 * receives the response as a form POST. The form page's CSP lets only its nonce'd script run and the form
 * go only to the app; any violation would show as a console problem.
 */
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMBER, openPage, signIn, signInByApi, type Sso, startWorld, stopWorld } from './helpers.js';

let sso: Sso;
let browser: Browser;
let client: Server;
let callback: string;
let app: { client_id: string; client_secret: string };
/** Every request the app received at its callback: method, content type and form body. */
const received: { method: string; contentType: string | undefined; form: URLSearchParams }[] = [];

beforeAll(async () => {
  ({ sso, browser } = await startWorld());
  client = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        contentType: request.headers['content-type'],
        form: new URLSearchParams(body),
      });
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<p>app callback</p>');
    });
  });
  await new Promise<void>((resolve) => client.listen(0, '127.0.0.1', resolve));
  const address = client.address();
  callback = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/cb`;
  app = await sso.addApp('Form Post App', '📮', [callback]);
}, 60_000);

afterAll(async () => {
  client.closeAllConnections();
  await new Promise<void>((resolve) => client.close(() => resolve()));
  await stopWorld({ sso, browser });
});

function authorizePath(extra: Record<string, string>): string {
  const query = new URLSearchParams({
    client_id: app.client_id,
    redirect_uri: callback,
    response_type: 'code',
    scope: 'openid',
    response_mode: 'form_post',
    ...extra,
  });
  return `/v1/oauth2/authorize?${query}`;
}

/** The next form POST the app receives. */
async function nextPost(before: number): Promise<URLSearchParams> {
  await expect.poll(() => received.length, { timeout: 10_000 }).toBeGreaterThan(before);
  const post = received[before];
  expect(post?.method).toBe('POST');
  expect(post?.contentType).toBe('application/x-www-form-urlencoded');
  return post?.form ?? new URLSearchParams();
}

async function exchange(code: string): Promise<number> {
  const response = await fetch(`${sso.baseUrl}/v1/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: callback,
      client_id: app.client_id,
      client_secret: app.client_secret,
    }).toString(),
  });
  return response.status;
}

describe('response_mode=form_post in the browser', () => {
  it('signs in, consents, and the app receives code, state and iss by POST', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await page.goto(authorizePath({ state: 'fp "1" <&>' }));
    await expect.poll(() => page.getByLabel('UIN', { exact: true }).isVisible()).toBe(true);
    await signIn(page, MEMBER);
    const authorize = page.getByRole('button', { name: 'Authorize', exact: true });
    await authorize.waitFor();
    const before = received.length;
    await Promise.all([page.waitForURL(callback), authorize.click()]);
    const form = await nextPost(before);
    expect([...form.keys()]).toEqual(['code', 'state', 'iss']);
    expect(form.get('state')).toBe('fp "1" <&>');
    expect(form.get('iss')).toBe(sso.baseUrl);
    expect(await exchange(form.get('code') ?? '')).toBe(200);
    // The app's URL carries nothing.
    expect(new URL(page.url()).search).toBe('');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('goes straight back by POST, no click, when the user already consented', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, MEMBER);
    const before = received.length;
    await page.goto(authorizePath({ state: 'again' }));
    await page.waitForURL(callback);
    const form = await nextPost(before);
    expect(form.get('state')).toBe('again');
    expect(await exchange(form.get('code') ?? '')).toBe(200);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('posts login_required for prompt=none when signed out, without showing a page', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    const before = received.length;
    await page.goto(authorizePath({ prompt: 'none', state: 'n' }));
    await page.waitForURL(callback);
    const form = await nextPost(before);
    expect(Object.fromEntries(form)).toMatchObject({ error: 'login_required', state: 'n', iss: sso.baseUrl });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('posts access_denied on Deny', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, MEMBER);
    await page.goto(authorizePath({ prompt: 'consent', state: 'd' }));
    const deny = page.getByRole('button', { name: 'Deny', exact: true });
    await deny.waitFor();
    const before = received.length;
    await Promise.all([page.waitForURL(callback), deny.click()]);
    const form = await nextPost(before);
    expect(Object.fromEntries(form)).toMatchObject({ error: 'access_denied', state: 'd' });
    expect(form.has('code')).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('offers a Continue button when JavaScript is off', async () => {
    const context = await browser.newContext({ baseURL: sso.baseUrl, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(authorizePath({ prompt: 'none', state: 'noscript' }));
    const before = received.length;
    const button = page.getByRole('button', { name: 'Continue', exact: true });
    await button.waitFor();
    await Promise.all([page.waitForURL(callback), button.click()]);
    const form = await nextPost(before);
    expect(Object.fromEntries(form)).toMatchObject({ error: 'login_required', state: 'noscript' });
    await context.close();
  });
});
