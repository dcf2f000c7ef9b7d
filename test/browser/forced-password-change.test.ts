/**
 * A password set by someone else must be changed at the next sign-in (docs/security.md): the sign-in page,
 * #/account and #/admin show the change form first, in English and Chinese, then continue where the user was.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  authUrl,
  CALLBACK,
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

const GIVEN = 'given-password-1';
const CHOSEN = 'my-own-passphrase-2';

/** A user the admin creates on the management API, with a password the admin chose. */
async function createdByAdmin(
  uin: number,
  group: 'admin' | 'member',
): Promise<{ uin: number; password: string }> {
  const context = await browser.newContext({ baseURL: sso.baseUrl });
  try {
    const headers = { 'content-type': 'application/json', origin: sso.baseUrl };
    expect((await context.request.post('/v1/account/login', { data: ADMIN, headers })).status()).toBe(200);
    const created = await context.request.post('/v1/admin/users', {
      data: { uin, password: GIVEN, user_group: group },
      headers,
    });
    expect(created.status()).toBe(200);
  } finally {
    await context.close();
  }
  return { uin, password: GIVEN };
}

describe('GET /#/auth with a password that must be changed', () => {
  it('asks for a new password after sign-in, then shows the consent and goes back to the app', async () => {
    const user = await createdByAdmin(5_000_001, 'member');
    const { page, context, problems } = await openPage(browser, sso);
    await page.goto(authUrl({ client_id: app.client_id, redirect_uri: CALLBACK, state: 'xyz' }));
    await signIn(page, user);
    await page.getByTestId('forced-password-change').waitFor();
    await page.getByText('Choose one only you know, then you will continue to 📚 Library.').waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'forced-password-change');
    await page.getByLabel('Password you were given', { exact: true }).fill(GIVEN);
    await page.getByLabel('New password', { exact: true }).fill(CHOSEN);
    await page.getByLabel('New password again', { exact: true }).fill(CHOSEN);
    await page.getByRole('button', { name: 'Change password and continue' }).click();

    const authorize = page.getByRole('button', { name: 'Authorize', exact: true });
    await Promise.all([page.waitForURL(`${CALLBACK}**`), authorize.click()]);
    const back = new URL(page.url());
    expect(back.searchParams.get('code')).toBeTruthy();
    expect(back.searchParams.get('state')).toBe('xyz');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('says so when the password given is wrong, and stays on the form', async () => {
    const user = await createdByAdmin(5_000_002, 'member');
    const { page, context } = await openPage(browser, sso);
    await page.goto(authUrl({ client_id: app.client_id, redirect_uri: CALLBACK }));
    await signIn(page, user);
    await page.getByLabel('Password you were given', { exact: true }).fill('not-what-i-was-given');
    await page.getByLabel('New password', { exact: true }).fill(CHOSEN);
    await page.getByLabel('New password again', { exact: true }).fill(CHOSEN);
    await page.getByRole('button', { name: 'Change password and continue' }).click();
    await page.getByText('The current password is wrong.').waitFor();
    expect(await page.getByTestId('forced-password-change').isVisible()).toBe(true);
    await context.close();
  });
});

describe('GET /#/account with a password that must be changed', () => {
  it('shows the change form first, in Chinese, then my account', async () => {
    const user = await createdByAdmin(5_000_003, 'member');
    const { page, context, problems } = await openPage(browser, sso, { locale: 'zh-CN' });
    await signInByApi(page, user);
    await page.goto('/#/account');
    await page.getByRole('heading', { name: '设置你自己的密码' }).waitFor();
    await page.getByLabel('收到的密码', { exact: true }).fill(GIVEN);
    await page.getByLabel('新密码', { exact: true }).fill(CHOSEN);
    await page.getByLabel('再次输入新密码', { exact: true }).fill(CHOSEN);
    await page.getByRole('button', { name: '修改密码并继续' }).click();
    await page.getByTestId('my-uin').waitFor();
    expect(await page.getByTestId('my-uin').textContent()).toBe(String(user.uin));
    await page.getByText('你还没有授权任何应用。').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('GET /#/admin with a password that must be changed', () => {
  it('shows the change form first, then the management page', async () => {
    const user = await createdByAdmin(5_000_004, 'admin');
    const { page, context, problems } = await openPage(browser, sso);
    await page.goto('/#/admin');
    await signIn(page, user);
    await page.getByTestId('forced-password-change').waitFor();
    await page.getByLabel('Password you were given', { exact: true }).fill(GIVEN);
    await page.getByLabel('New password', { exact: true }).fill(CHOSEN);
    await page.getByLabel('New password again', { exact: true }).fill(CHOSEN);
    await page.getByRole('button', { name: 'Change password and continue' }).click();
    await page.getByRole('tab', { name: 'OAuth 2 applications' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });
});
