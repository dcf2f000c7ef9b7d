/**
 * The account and home pages, languages and accessibility, in a real browser against the real server.
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

describe('GET /#/account (my account)', () => {
  it('shows who I am and the apps I authorized; Revoke withdraws consent', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, MEMBER);
    // Authorize the app once, so it is listed.
    await page.goto(authUrl({ client_id: app.client_id, redirect_uri: CALLBACK }));
    const authorize = page.getByRole('button', { name: 'Authorize', exact: true });
    await Promise.all([page.waitForURL(`${CALLBACK}**`), authorize.click()]);

    await page.goto('/#/account');
    await page.getByTestId('my-uin').waitFor();
    expect(await page.getByTestId('my-uin').textContent()).toBe(String(MEMBER.uin));
    const consents = page.getByTestId('consents');
    await consents.locator('.consent-row__name', { hasText: 'Library' }).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'account');

    await consents.getByRole('button', { name: 'Revoke Library' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByText('You have not allowed any application yet.').waitFor();
    const list = await page.request.get('/v1/account/consents');
    expect(((await list.json()) as { data: { consents: unknown[] } }).data.consents).toEqual([]);

    // Consent is asked again next time (no silent redirect).
    await page.goto(authUrl({ client_id: app.client_id, redirect_uri: CALLBACK }));
    await page.getByRole('button', { name: 'Authorize', exact: true }).waitFor();
    expect(page.url().startsWith(sso.baseUrl)).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('changes my password', async () => {
    await sso.addUser(30003, 'user', 'old-password-3');
    const { page, context } = await openPage(browser, sso);
    await signInByApi(page, { uin: 30003, password: 'old-password-3' });
    await page.goto('/#/account');
    await page.getByLabel('Current password', { exact: true }).fill('old-password-3');
    await page.getByLabel('New password', { exact: true }).fill('new-password-3');
    await page.getByLabel('New password again', { exact: true }).fill('new-password-3');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your password was changed.').waitFor();
    const login = await fetch(`${sso.baseUrl}/v1/account/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uin: 30003, password: 'new-password-3' }),
    });
    expect(login.status).toBe(200);
    await context.close();
  });

  it('signs out', async () => {
    const { page, context } = await openPage(browser, sso);
    await signInByApi(page, MEMBER);
    await page.goto('/#/account');
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    // docs/interface.md#sessions-and-sign-out: every sign-out says so.
    await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
    expect((await page.request.get('/v1/account/me')).status()).toBe(401);
    await context.close();
  });
});

describe('GET / (home)', () => {
  it('shows the sign-in form, then links to My account and Administration for an admin', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await page.goto('/');
    await page.getByLabel('UIN', { exact: true }).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'home-signed-out');
    await signIn(page, ADMIN);
    await page.getByText(`Welcome, ${ADMIN.uin}`).waitFor();
    expect(
      await page
        .getByRole('main')
        .getByRole('link', { name: /My account/ })
        .isVisible(),
    ).toBe(true);
    expect(
      await page
        .getByRole('main')
        .getByRole('link', { name: /Administration/ })
        .isVisible(),
    ).toBe(true);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'home');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows no Administration link to a member', async () => {
    const { page, context } = await openPage(browser, sso);
    await signInByApi(page, MEMBER);
    await page.goto('/');
    await page.getByText(`Welcome, ${MEMBER.uin}`).waitFor();
    expect(await page.getByRole('link', { name: /Administration/ }).count()).toBe(0);
    await context.close();
  });
});

describe('languages', () => {
  it('switches to Simplified Chinese from the visible control, remembers it, and sets <html lang>', async () => {
    const { page, context, problems } = await openPage(browser, sso, { locale: 'en-US' });
    await page.goto(authUrl({ client_id: app.client_id, redirect_uri: CALLBACK }));
    await page.getByLabel('UIN', { exact: true }).waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('en');

    await page.getByTestId('lang-switch').click();
    await page.getByLabel('账号', { exact: true }).waitFor();
    expect(await page.getByLabel('密码', { exact: true }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: '登录', exact: true }).isVisible()).toBe(true);
    expect(await page.getAttribute('html', 'lang')).toBe('zh-CN');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'auth-login-zh');

    // Remembered across visits.
    await page.reload();
    await page.getByLabel('账号', { exact: true }).waitFor();

    // Consent in Chinese: 授权 / 拒绝.
    await signIn(page, ADMIN, { uin: '账号', password: '密码', submit: '登录' });
    await page.getByRole('button', { name: '授权', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: '拒绝', exact: true }).isVisible()).toBe(true);
    await screenshots(page, 'auth-consent-zh');

    await page.getByTestId('lang-switch').click();
    await page.getByRole('button', { name: 'Authorize', exact: true }).waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('follows the browser language on the first visit', async () => {
    const { page, context } = await openPage(browser, sso, { locale: 'zh-CN' });
    await page.goto('/');
    await page.getByLabel('账号', { exact: true }).waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('zh-CN');
    await signInByApi(page, ADMIN);
    await page.goto('/#/admin');
    await page.reload();
    await page.getByRole('tab', { name: 'OAuth 2 应用' }).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'admin-zh');
    await context.close();
  });
});
