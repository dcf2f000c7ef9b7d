/**
 * The authorization page (docs/interface.md#authorization-page) in a real browser against the real server:
 * sign-in, consent, Deny, remembered consent, and the error card that never redirects.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  authUrl,
  CALLBACK,
  MEMBER,
  openPage,
  screenshots,
  seriousA11yViolations,
  signIn,
  signInByApi,
  type Sso,
  startWorld,
  stopWorld,
  type World,
} from './helpers.js';

let sso: Sso;
let browser: Browser;
let app: World['app'];

beforeAll(async () => {
  ({ sso, browser, app } = await startWorld());
}, 60_000);

afterAll(() => stopWorld({ sso, browser }));

/**
 * Exchanges a code at the legacy endpoint (docs/interface.md#legacy-token-endpoint) and reads the user
 * (docs/interface.md#legacy-user-information).
 */
async function userOfCode(code: string): Promise<{ uin: number; user_group: string }> {
  const token = await fetch(`${sso.baseUrl}/v1/oauth2/get-access-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: app.client_id, client_secret: app.client_secret, code }),
  });
  const tokenBody = (await token.json()) as { code: number; data: { access_token: string } };
  expect(tokenBody.code).toBe(0);
  const info = await fetch(`${sso.baseUrl}/v1/oauth2/get-user-info`, {
    headers: { authorization: `Bearer ${tokenBody.data.access_token}` },
  });
  return ((await info.json()) as { data: { uin: number; user_group: string } }).data;
}

describe('GET /#/auth (sign-in and consent page)', () => {
  it('shows the sign-in form, then consent, and Authorize lands on redirect_uri with code and state', async () => {
    const { page, context, problems, foreignRequests } = await openPage(browser, sso);
    const state = 'xyz/ä &=?';
    await page.goto(authUrl({ client_id: app.client_id, redirect_uri: CALLBACK, state }));
    await expect.poll(() => page.getByLabel('UIN', { exact: true }).isVisible()).toBe(true);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'auth-login');

    await signIn(page, MEMBER);
    const authorize = page.getByRole('button', { name: 'Authorize', exact: true });
    await authorize.waitFor();
    await expect
      .poll(() => page.getByText('Library wants to use your school account').isVisible())
      .toBe(true);
    expect(await page.getByText(`Signed in as ${MEMBER.uin}`).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Deny', exact: true }).isVisible()).toBe(true);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'auth-consent');

    await Promise.all([page.waitForURL(`${CALLBACK}**`), authorize.click()]);
    const landed = new URL(page.url());
    expect(landed.origin + landed.pathname).toBe(CALLBACK);
    expect(landed.searchParams.get('state')).toBe(state);
    const code = landed.searchParams.get('code');
    expect(code).toBeTruthy();
    expect(await userOfCode(code ?? '')).toMatchObject({ uin: MEMBER.uin, user_group: 'member' });
    expect(problems).toEqual([]);
    expect(foreignRequests).toEqual([]);
    await context.close();
  });

  it('goes straight back with a new code, no click, when the user already consented', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, MEMBER);
    await page.goto(authUrl({ client_id: app.client_id, redirect_uri: CALLBACK, state: 'again' }));
    await page.waitForURL(`${CALLBACK}**`);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('state')).toBe('again');
    expect(landed.searchParams.get('code')).toBeTruthy();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('with an existing session shows consent at once; Deny lands on redirect_uri with error=access_denied', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await page.goto(authUrl({ client_id: app.client_id, redirect_uri: CALLBACK, state: 's1' }));
    const deny = page.getByRole('button', { name: 'Deny', exact: true });
    await deny.waitFor();
    expect(await page.getByLabel('UIN', { exact: true }).count()).toBe(0);
    await Promise.all([page.waitForURL(`${CALLBACK}**`), deny.click()]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('error')).toBe('access_denied');
    expect(landed.searchParams.get('state')).toBe('s1');
    expect(landed.searchParams.get('code')).toBeNull();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('omits state when the app sent none, and reads parameters from the real query string too', async () => {
    const { page, context } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await page.goto(`/?${new URLSearchParams({ client_id: app.client_id, redirect_uri: CALLBACK })}#/auth`);
    const authorize = page.getByRole('button', { name: 'Authorize', exact: true });
    await authorize.waitFor();
    await Promise.all([page.waitForURL(`${CALLBACK}**`), authorize.click()]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('code')).toBeTruthy();
    expect(landed.searchParams.has('state')).toBe(false);
    await context.close();
  });

  it('shows an error card and never redirects for an unregistered redirect_uri', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    let leftTheSite = false;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame() && !frame.url().startsWith(sso.baseUrl)) leftTheSite = true;
    });
    await signInByApi(page, MEMBER);
    await page.goto(
      authUrl({ client_id: app.client_id, redirect_uri: 'http://127.0.0.1:59999/evil', state: 'x' }),
    );
    await page.getByTestId('auth-error').waitFor();
    expect(await page.getByText('This sign-in link does not work').isVisible()).toBe(true);
    await page.waitForTimeout(500);
    expect(leftTheSite).toBe(false);
    expect(page.url().startsWith(sso.baseUrl)).toBe(true);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'auth-error');
    expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
    await context.close();
  });

  it('shows the error card for an unknown client_id even before sign-in', async () => {
    const { page, context } = await openPage(browser, sso);
    await page.goto(authUrl({ client_id: 'AAAAAAAAAAAAAAAA', redirect_uri: CALLBACK }));
    await page.getByTestId('auth-error').waitFor();
    expect(page.url().startsWith(sso.baseUrl)).toBe(true);
    await context.close();
  });

  it('says "wrong UIN or password" inline and stays on the form', async () => {
    const { page, context } = await openPage(browser, sso);
    await page.goto(authUrl({ client_id: app.client_id, redirect_uri: CALLBACK }));
    await signIn(page, { uin: MEMBER.uin, password: 'not-the-password' });
    await page.getByText('Wrong UIN or password.').waitFor();
    expect(await page.getByLabel('Password', { exact: true }).isVisible()).toBe(true);
    await context.close();
  });

  it('shows "try again in N s" inline when sign-in is throttled (429 with Retry-After)', async () => {
    await sso.addUser(50005, 'user', 'throttled-password');
    const { page, context } = await openPage(browser, sso);
    await page.goto(authUrl({ client_id: app.client_id, redirect_uri: CALLBACK }));
    // The fifth wrong password locks the account, and the form says so at once (docs/security.md).
    for (let attempt = 0; attempt < 5; attempt++) {
      const answer = page.waitForResponse((response) => response.url().endsWith('/v1/account/login'));
      await signIn(page, { uin: 50005, password: `wrong-password-${attempt}` });
      expect((await answer).status()).toBe(401);
    }
    await page.getByText(/The account is now locked: try again in \d+ s\./).waitFor();
    expect(await page.getByRole('button', { name: 'Sign in', exact: true }).isDisabled()).toBe(true);
    // A new page knows nothing of it: the server's 429 says how long to wait.
    await page.reload();
    const throttled = page.waitForResponse((response) => response.url().endsWith('/v1/account/login'));
    await signIn(page, { uin: 50005, password: 'throttled-password' });
    expect((await throttled).status()).toBe(429);
    await page.getByText(/Too many attempts\. Try again in \d+ s\./).waitFor();
    expect(await page.getByRole('button', { name: 'Sign in', exact: true }).isDisabled()).toBe(true);
    await context.close();
  });
});
