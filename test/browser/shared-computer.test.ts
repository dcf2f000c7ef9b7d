/**
 * Shared computers (docs/interface.md#sessions-and-sign-out), in a real browser against the real server:
 * the "This is a shared computer" sign-in, sessions on #/account, the #/logout page of RP-initiated logout,
 * and an admin's "Sign out everywhere".
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  authUrl,
  CALLBACK,
  MEMBER,
  openPage,
  openView,
  screenshots,
  seriousA11yViolations,
  signInByApi,
  type Sso,
  startWorld,
  stopWorld,
  type World,
  userRowAction,
} from './helpers.js';

let sso: Sso;
let browser: Browser;
let library: World['app'];
let wiki: { client_id: string; client_secret: string };

beforeAll(async () => {
  ({ sso, browser, app: library } = await startWorld());
  wiki = await sso.addApp('Wiki', '📖');
}, 60_000);

afterAll(() => stopWorld({ sso, browser }));

async function authorize(page: Page, clientId: string): Promise<void> {
  await page.goto(authUrl({ client_id: clientId, redirect_uri: CALLBACK, state: 's' }));
  const button = page.getByRole('button', { name: 'Authorize', exact: true });
  await Promise.all([page.waitForURL(`${CALLBACK}**`), button.click()]);
}

async function expectSignInForm(page: Page, clientId: string): Promise<void> {
  // From home's sign-in form: the form waited for must be the authorization page's.
  await openView(page, authUrl({ client_id: clientId, redirect_uri: CALLBACK, state: 's' }));
  await page.getByLabel('UIN', { exact: true }).waitFor();
  expect(page.url().startsWith(sso.baseUrl)).toBe(true);
}

describe('a shared computer', () => {
  it('signs the next person out of both apps after "Sign out" on #/account', async () => {
    await sso.addUser(40004, 'member', 'student-password-4');
    const { page, context, problems } = await openPage(browser, sso);

    // Student A signs in on a lab computer, ticking "This is a shared computer".
    await page.goto(authUrl({ client_id: library.client_id, redirect_uri: CALLBACK, state: 's' }));
    await page.getByLabel('UIN', { exact: true }).fill('40004');
    await page.getByLabel('Password', { exact: true }).fill('student-password-4');
    await page.getByLabel('This is a shared computer').check();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    const first = page.getByRole('button', { name: 'Authorize', exact: true });
    await Promise.all([page.waitForURL(`${CALLBACK}**`), first.click()]);
    await authorize(page, wiki.client_id);

    // The cookie ends with the browser, and remembered consent is not used silently.
    const cookies = await context.cookies(sso.baseUrl);
    expect(cookies.find((c) => c.name.endsWith('campus_sso_session'))?.expires).toBe(-1);
    await page.goto(authUrl({ client_id: library.client_id, redirect_uri: CALLBACK, state: 's' }));
    await page.getByRole('button', { name: 'Authorize', exact: true }).waitFor();
    expect(page.url().startsWith(sso.baseUrl)).toBe(true);

    // #/account lists the session, marked, and signs out.
    await page.goto('/#/account');
    const sessions = page.getByTestId('sessions');
    await sessions.getByText('This browser').waitFor();
    await sessions.getByText('Shared computer').waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'account-sessions');
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'You are signed out' }).waitFor();

    // The next person at the same browser is asked to sign in by both apps.
    await expectSignInForm(page, library.client_id);
    await expectSignInForm(page, wiki.client_id);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lists my other sessions, signs one out, and signs out everywhere', async () => {
    const phone = await openPage(browser, sso);
    await signInByApi(phone.page, MEMBER);
    const { page, context } = await openPage(browser, sso, { width: 375, height: 812 });
    await signInByApi(page, MEMBER);
    await page.goto('/#/account');
    const rows = page.getByTestId('sessions').locator('li');
    await rows.nth(1).waitFor();
    const count = await rows.count();
    expect(count).toBeGreaterThanOrEqual(2);

    // Keyboard: the other session's Sign out button is reachable and works with Enter.
    const other = rows.filter({ hasNotText: 'This browser' }).first();
    await other.getByRole('button').focus();
    await page.keyboard.press('Enter');
    await page.getByText('That browser was signed out.').waitFor();
    expect((await phone.page.request.get('/v1/account/me')).status()).toBe(401);

    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
    expect((await page.request.get('/v1/account/me')).status()).toBe(401);
    await phone.context.close();
    await context.close();
  });
});

describe('GET /#/logout (RP-initiated logout)', () => {
  it('asks "Sign out of Campus sign-in?" (the school’s name, never the software’s), in the language the app asks for, and returns to the app', async () => {
    const { page: adminPage, context: adminContext } = await openPage(browser, sso);
    await signInByApi(adminPage, ADMIN);
    const patched = await adminPage.request.patch(`/v1/admin/apps/${library.client_id}`, {
      data: { post_logout_redirect_uris: [`${CALLBACK}/bye`] },
      headers: { 'content-type': 'application/json' },
    });
    expect(patched.ok()).toBe(true);
    await adminContext.close();

    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, MEMBER);
    const query = new URLSearchParams({
      client_id: library.client_id,
      post_logout_redirect_uri: `${CALLBACK}/bye`,
      state: 'st',
    });
    await page.goto(`/v1/oauth2/logout?${query}`);
    await page.getByRole('heading', { name: 'Sign out of Campus sign-in?' }).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'logout-confirm');

    await page.goto(`/v1/oauth2/logout?${query}&ui_locales=zh-CN`);
    const signOut = page.getByRole('button', { name: '退出登录', exact: true });
    await signOut.waitFor();
    await Promise.all([page.waitForURL(`${CALLBACK}/bye?state=st`), signOut.click()]);
    expect((await page.request.get(`${sso.baseUrl}/v1/account/me`)).status()).toBe(401);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('refuses an unregistered post_logout_redirect_uri: says why, signs nobody out, goes nowhere', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, MEMBER);
    const query = new URLSearchParams({
      client_id: library.client_id,
      post_logout_redirect_uri: 'https://evil.example/',
      state: 'st',
    });
    await page.goto(`/v1/oauth2/logout?${query}`);
    await page.getByRole('heading', { name: 'This sign-out link is not valid' }).waitFor();
    expect(await page.getByText('is not one the app registered').isVisible()).toBe(true);
    expect((await page.request.get(`${sso.baseUrl}/v1/account/me`)).status()).toBe(200);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'logout-refused');
    // The user may still sign out here, and stays on campus-sso.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
    expect(page.url().startsWith(sso.baseUrl)).toBe(true);
    expect((await page.request.get(`${sso.baseUrl}/v1/account/me`)).status()).toBe(401);
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('Users panel: Sign out everywhere', () => {
  it('ends every session of the user', async () => {
    const member = await openPage(browser, sso);
    await signInByApi(member.page, MEMBER);
    const { page, context } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await page.goto('/#/admin');
    await page.getByRole('tab', { name: 'Users' }).click();
    await userRowAction(page, MEMBER.uin, 'Sign out everywhere');
    // The confirmation toast lives three seconds: a loaded machine may not look while it shows, so every
    // text shown in a toast is recorded from now on (a function evaluated in the page, which the CSP allows).
    await page.evaluate(() => {
      const g = globalThis as unknown as {
        toasts: string[];
        document: { body: object; querySelectorAll(s: string): { textContent: string | null }[] };
        MutationObserver: new (callback: () => void) => { observe(target: object, options: object): void };
      };
      g.toasts = [];
      new g.MutationObserver(() => {
        for (const toast of g.document.querySelectorAll('.n-message')) g.toasts.push(toast.textContent ?? '');
      }).observe(g.document.body, { childList: true, subtree: true, characterData: true });
    });
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out everywhere' }).click();
    await expect
      .poll(() => page.evaluate(() => (globalThis as unknown as { toasts: string[] }).toasts.join('\n')), {
        timeout: 30_000,
      })
      .toContain(`${MEMBER.uin} was signed out of`);
    expect((await member.page.request.get('/v1/account/me')).status()).toBe(401);
    await member.context.close();
    await context.close();
  });
});
