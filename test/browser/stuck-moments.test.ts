/**
 * The moments where students and admins got stuck (docs/interface.md#authorization-page), walked in Chromium at a
 * phone's 375 px in Chinese and a 1280×800 laptop in English, with axe (WCAG 2.2 AA and best practice) on
 * every state touched.
 */
import { generateSync } from 'otplib';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  CALLBACK,
  a11yViolations,
  authUrl,
  openPage,
  openView,
  MEMBER,
  signInByApi,
  type Sso,
  startSso,
  startWorld,
  stopWorld,
  type World,
  userRowAction,
} from './helpers.js';

let sso: Sso;
let browser: Browser;
let app: World['app'];

beforeAll(async () => {
  ({ sso, browser, app } = await startWorld());
}, 60_000);

afterAll(() => stopWorld({ sso, browser }));

const PHONE_ZH = { locale: 'zh-CN', width: 375, height: 812 } as const;

/** True when the element's box lies inside the viewport (at least partly visible without scrolling). */
async function inViewport(locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const size = locator.page().viewportSize();
  if (!box || !size) return false;
  return box.y + box.height > 0 && box.y < size.height && box.x + box.width > 0 && box.x < size.width;
}

/** The id of the focused element. */
function focusedId(page: Page): Promise<string> {
  return page.evaluate(
    () =>
      (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement
        ?.id ?? '',
  );
}

describe('item 2: a refused password is explained in the page’s language', () => {
  it('#/reset at 375 px in Chinese: the account-number reason under the new password, focused, with the meter', async () => {
    const { page, context, problems } = await openPage(browser, sso, PHONE_ZH);
    await openView(page, '/#/reset');
    await page.locator('#reset-uin').fill('2026888');
    await page.locator('#reset-code').fill('ABCD-EFGH-JKMN');
    await page.locator('#reset-new-password').fill('abc2026888xyz');
    await page.locator('#reset-repeat-password').fill('abc2026888xyz');
    await expect.poll(() => page.getByTestId('password-strength').innerText()).toContain('包含账号');
    await page.getByRole('button', { name: '设置密码' }).click();
    const reason = page.getByText('不能使用这个密码：其中包含账号。请换一个不含账号的密码。');
    await reason.waitFor();
    expect(await focusedId(page)).toBe('reset-new-password');
    expect(await inViewport(reason)).toBe(true);
    expect(await page.locator('#reset-new-password').getAttribute('aria-invalid')).toBe('true');
    // No English from the server inside the Chinese page.
    expect(await page.locator('main').innerText()).not.toMatch(/password|uin/i);
    expect(await a11yViolations(page)).toEqual([]);
    await page.screenshot({
      path: 'test-artifacts/screenshots/stuck-2-reset-refused-zh-375.png',
      fullPage: true,
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('#/account at 1280×800 in English: "one of the most common passwords", focused', async () => {
    await sso.addUser(3_100_001, 'user', 'first-password-31');
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, { uin: 3_100_001, password: 'first-password-31' });
    await openView(page, '/#/account');
    await page.locator('#pw-current').fill('first-password-31');
    await page.locator('#pw-new').fill('iloveyou');
    await page.locator('#pw-repeat').fill('iloveyou');
    await page.getByRole('button', { name: 'Change password' }).click();
    const reason = page.getByText(
      'This password cannot be used: it is one of the most common passwords. Choose another.',
    );
    await reason.waitFor();
    expect(await focusedId(page)).toBe('pw-new');
    expect(await inViewport(reason)).toBe(true);
    expect(await a11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('the admin’s reset-password dialog says why: the password contains the UIN', async () => {
    await sso.addUser(3_100_002, 'user', 'first-password-32');
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await openView(page, '/#/admin');
    await page.getByRole('tab', { name: 'Users' }).click();
    await page.getByTestId('users-table').waitFor();
    await userRowAction(page, 3_100_002, 'Reset password');
    await page.locator('#reset-password').fill('x3100002-lantern');
    await page.getByTestId('reset-password').getByRole('button', { name: 'Reset password' }).click();
    const reason = page.getByText(
      'This password cannot be used: it contains the UIN (the account number). Choose one without it.',
    );
    await reason.waitFor();
    expect(await inViewport(reason)).toBe(true);
    expect(await a11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('item 10: warnings before harm', () => {
  it('at 375 px in Chinese the fourth wrong password warns that one more locks the account for 30 s', async () => {
    await sso.addUser(3_100_010, 'user', 'right-password-310');
    const { page, context, problems } = await openPage(browser, sso, PHONE_ZH);
    await openView(page, '/#/account');
    const failure = page.getByTestId('login-failure');
    for (let i = 1; i <= 4; i++) {
      await page.locator('#login-uin').fill('3100010');
      await page.locator('#login-password').fill(`wrong guess ${i}`);
      await page.getByRole('button', { name: '登录', exact: true }).click();
      await expect
        .poll(() => failure.innerText())
        .toBe(
          i < 4
            ? '账号或密码错误。'
            : '账号或密码错误。再输错一次密码，账号将被锁定 30 秒。不确定的话，请先看下方的帮助。',
        );
    }
    expect(await inViewport(failure)).toBe(true);
    expect(await a11yViolations(page)).toEqual([]);
    await page.screenshot({
      path: 'test-artifacts/screenshots/stuck-10-last-try-zh-375.png',
      fullPage: true,
    });

    // The fifth locks, and the form says so at once.
    await page.locator('#login-password').fill('wrong guess 5');
    await page.getByRole('button', { name: '登录', exact: true }).click();
    await expect.poll(() => failure.innerText()).toMatch(/账号现已锁定，请在 \d+ 秒后重试/);
    expect(await page.getByRole('button', { name: '登录', exact: true }).isDisabled()).toBe(true);
    expect(await a11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('at 1280×800 a bad response_type is shown before sign-in, and the way back tells the app', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await page.goto(
      authUrl({ client_id: app.client_id, redirect_uri: CALLBACK, state: 'st-10', response_type: 'token' }),
    );
    const card = page.getByTestId('request-error');
    await card.waitFor();
    expect(await page.locator('#login-password').count()).toBe(0);
    expect(await page.getByTestId('request-error-cause').innerText()).toBe(
      'Library asked for a kind of sign-in this service does not offer, so signing in here would not get you into Library.',
    );
    expect(await a11yViolations(page)).toEqual([]);
    await page.screenshot({
      path: 'test-artifacts/screenshots/stuck-10-request-error-1280.png',
      fullPage: true,
    });
    await Promise.all([
      page.waitForURL(`${CALLBACK}**`),
      page.getByRole('button', { name: 'Return to Library' }).click(),
    ]);
    const back = new URL(page.url());
    expect(back.searchParams.get('error')).toBe('unsupported_response_type');
    expect(back.searchParams.get('state')).toBe('st-10');
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('item 9: signing out says so, under the school’s name in each language', () => {
  let branded: Sso;
  beforeAll(async () => {
    branded = await startSso({
      env: { BRAND_NAME: 'Riverside High School', BRAND_NAME_ZH: '河畔中学' },
    });
    await branded.addUser(MEMBER.uin, 'member', MEMBER.password);
  }, 60_000);
  afterAll(() => branded.stop());

  it('at 375 px in Chinese: #/account → 退出登录 → "你已退出登录" and "close the browser window", as 河畔中学', async () => {
    const { page, context, problems } = await openPage(browser, branded, PHONE_ZH);
    await signInByApi(page, MEMBER);
    await openView(page, '/#/account');
    await page.getByTestId('brand').getByText('河畔中学').waitFor();
    await page.getByRole('button', { name: '退出登录', exact: true }).first().click();
    const heading = page.getByRole('heading', { name: '你已退出登录' });
    await heading.waitFor();
    expect(await inViewport(heading)).toBe(true);
    await page.getByText('如果这是公用电脑，请同时关闭浏览器窗口').waitFor();
    expect((await page.request.get('/v1/account/me')).status()).toBe(401);
    await expect.poll(() => page.title()).toContain('河畔中学');
    const text = await page.locator('body').innerText();
    expect(text).not.toMatch(/campus-sso|Riverside/i);
    expect(await a11yViolations(page)).toEqual([]);
    await page.screenshot({
      path: 'test-artifacts/screenshots/stuck-9-signed-out-zh-375.png',
      fullPage: true,
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('at 1280×800 in English: "Sign out everywhere" and the apps’ sign-out both say "You are signed out"', async () => {
    const { page, context, problems } = await openPage(browser, branded);
    await signInByApi(page, MEMBER);
    await openView(page, '/#/account');
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
    await page.getByText('On a shared computer, also close the browser window').waitFor();
    await page.getByTestId('brand').getByText('Riverside High School').waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    // The apps' sign-out confirmation names the school, never the software.
    await signInByApi(page, MEMBER);
    await page.goto('/v1/oauth2/logout');
    await page.getByRole('heading', { name: 'Sign out of Riverside High School?' }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('“Not you? Sign out” on the consent page says you are signed out above the sign-in form', async () => {
    const lib = await branded.addApp('Library', '📚');
    const { page, context, problems } = await openPage(browser, branded);
    await signInByApi(page, MEMBER);
    await page.goto(authUrl({ client_id: lib.client_id, redirect_uri: CALLBACK }));
    await page.getByRole('link', { name: 'Not you? Sign out' }).click();
    await page.getByTestId('signed-out').getByText('You are signed out').waitFor();
    await page.locator('#login-uin').waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

/** A one-time reset code for `uin`, issued by the admin on the API (docs/interface.md#unlock-and-reset-codes). */
async function resetCodeFor(target: Sso, uin: number): Promise<string> {
  const context = await browser.newContext({ baseURL: target.baseUrl });
  try {
    const headers = { 'content-type': 'application/json', origin: target.baseUrl };
    expect((await context.request.post('/v1/account/login', { data: ADMIN, headers })).status()).toBe(200);
    const answer = await context.request.post(`/v1/admin/users/${uin}/reset-code`, { data: {}, headers });
    expect(answer.status()).toBe(200);
    return ((await answer.json()) as { data: { code: string } }).data.code;
  } finally {
    await context.close();
  }
}

describe('item 7: the reset path returns to the app', () => {
  it('at 375 px in Chinese: #/auth → 有重置码？ → #/reset → back to the app’s sign-in with the account filled in', async () => {
    await sso.addUser(3_100_007, 'user', 'forgotten-password-37');
    const code = await resetCodeFor(sso, 3_100_007);
    const { page, context, problems } = await openPage(browser, sso, PHONE_ZH);
    await page.goto(authUrl({ client_id: app.client_id, redirect_uri: CALLBACK, state: 'st-7' }));
    await page.getByRole('link', { name: '有重置码？设置新密码' }).click();
    await page.locator('main[data-view="/reset"]').waitFor();
    // "Back to sign in" is there before anything is typed, and keeps the app's request.
    const backLink = page.getByTestId('reset-back');
    expect(await backLink.getAttribute('href')).toContain(`#/auth?client_id=${app.client_id}`);
    expect(await a11yViolations(page)).toEqual([]);

    await page.locator('#reset-uin').fill('3100007');
    await page.locator('#reset-code').fill(code);
    await page.locator('#reset-new-password').fill('a brand new passphrase 37');
    await page.locator('#reset-repeat-password').fill('a brand new passphrase 37');
    await page.getByRole('button', { name: '设置密码' }).click();
    const next = page.getByTestId('reset-continue');
    await next.waitFor();
    expect(
      await page.evaluate(() =>
        (
          globalThis as unknown as {
            document: { activeElement: { getAttribute(n: string): string | null } | null };
          }
        ).document.activeElement?.getAttribute('data-testid'),
      ),
    ).toBe('reset-continue');
    expect(await a11yViolations(page)).toEqual([]);
    await page.screenshot({
      path: 'test-artifacts/screenshots/stuck-7-reset-done-zh-375.png',
      fullPage: true,
    });
    await next.click();

    // Back on the app's sign-in, the account number already filled in.
    await page.locator('main[data-view="/auth"]').waitFor();
    await expect.poll(() => page.locator('#login-uin').inputValue()).toBe('3100007');
    await page.getByText('📚 Library').first().waitFor();
    await page.locator('#login-password').fill('a brand new passphrase 37');
    await page.getByRole('button', { name: '登录', exact: true }).click();
    const authorize = page.getByRole('button', { name: '授权', exact: true });
    await Promise.all([page.waitForURL(`${CALLBACK}**`), authorize.click()]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('code')).toBeTruthy();
    expect(landed.searchParams.get('state')).toBe('st-7');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('at 1280×800: "Back to sign in" on #/reset returns to the app’s request unchanged', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await page.goto(authUrl({ client_id: app.client_id, redirect_uri: CALLBACK, state: 'st-7b' }));
    await page.getByRole('link', { name: 'Have a reset code? Set a new password' }).click();
    await page.locator('main[data-view="/reset"]').waitFor();
    await page.getByRole('link', { name: 'Back to sign in' }).click();
    await page.locator('main[data-view="/auth"]').waitFor();
    await page.getByText('Log in to continue to 📚 Library.').waitFor();
    expect(new URL(page.url()).hash).toContain('state=st-7b');
    expect(problems).toEqual([]);
    await context.close();
  });
});

/** Gives `user` a confirmed authenticator app through the account API, in a context of its own. */
async function enrolTotp(user: { uin: number; password: string }): Promise<void> {
  const context = await browser.newContext({ baseURL: sso.baseUrl });
  try {
    const headers = { 'content-type': 'application/json', origin: sso.baseUrl };
    expect((await context.request.post('/v1/account/login', { data: user, headers })).status()).toBe(200);
    const setup = await context.request.post('/v1/account/totp/setup', { data: {}, headers });
    const { secret } = ((await setup.json()) as { data: { secret: string } }).data;
    const confirm = await context.request.post('/v1/account/totp/confirm', {
      data: { code: generateSync({ secret, epoch: Math.floor(Date.now() / 1000) }) },
      headers,
    });
    expect(confirm.status()).toBe(200);
  } finally {
    await context.close();
  }
}

/** What `POST /v1/account/login` with the right password asks next: the second factors, or nothing. */
async function secondStepAsked(user: { uin: number; password: string }): Promise<unknown> {
  const context = await browser.newContext({ baseURL: sso.baseUrl });
  try {
    const headers = { 'content-type': 'application/json', origin: sso.baseUrl };
    const answer = await context.request.post('/v1/account/login', { data: user, headers });
    expect(answer.status()).toBe(200);
    return ((await answer.json()) as { data: { second_factor?: unknown } }).data.second_factor ?? null;
  } finally {
    await context.close();
  }
}

describe('item 3: a student who lost a second factor is helped from #/admin', () => {
  it('at 1280×800: the Users list shows the factor, "Remove second factors" removes it, and the password alone signs in', async () => {
    const student = { uin: 3_100_003, password: 'student-password-33' };
    await sso.addUser(student.uin, 'user', student.password);
    await enrolTotp(student);
    expect(await secondStepAsked(student)).toContain('totp');

    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await openView(page, '/#/admin');
    await page.getByRole('tab', { name: 'Users' }).click();
    await page.getByTestId('users-table').waitFor();
    await page.getByTestId(`factors-${student.uin}`).getByText('Authenticator app').waitFor();
    await userRowAction(page, student.uin, 'Remove second factors');
    const dialog = page.getByRole('dialog');
    await dialog.getByText(`Remove the second factors of ${student.uin}?`).waitFor();
    await dialog.getByText('This is recorded in the audit trail.', { exact: false }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Remove second factors' }).click();
    await page.getByText(`${student.uin} can now sign in with their password alone.`).waitFor();
    await expect.poll(() => page.getByTestId(`factors-${student.uin}`).count()).toBe(0);
    expect(await secondStepAsked(student)).toBeNull();
    // Audited.
    const audit = await page.request.get(`/v1/admin/audit?uin=${student.uin}`);
    expect(JSON.stringify(await audit.json())).toContain('second_factors_removed_by_admin');
    expect(await a11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('the reset-code dialog can also remove the factors, saying so plainly ("lost phone")', async () => {
    const student = { uin: 3_100_004, password: 'student-password-34' };
    await sso.addUser(student.uin, 'user', student.password);
    await enrolTotp(student);
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await openView(page, '/#/admin');
    await page.getByRole('tab', { name: 'Users' }).click();
    await page.getByTestId(`factors-${student.uin}`).waitFor();
    await userRowAction(page, student.uin, 'Reset code');
    const dialog = page.getByTestId('reset-code');
    const also = dialog.getByText('They also lost their phone or passkey: remove their second factors too');
    await also.waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    await also.click();
    await dialog.getByRole('button', { name: 'Create the reset code' }).click();
    await dialog.getByText(`The second factors of ${student.uin} were removed.`).waitFor();
    await dialog.getByTestId('reset-code-value').waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    await page.screenshot({ path: 'test-artifacts/screenshots/stuck-3-reset-code-1280.png' });
    expect(await secondStepAsked(student)).toBeNull();
    expect(problems).toEqual([]);
    await context.close();
  });
});

// Item 1 (shown-once screens) is test/browser/shown-once.test.ts.

describe('item 4: admin tables fit a 1280×800 screen', () => {
  it('keeps the UIN pinned while the Users table scrolls sideways, and nothing is wider than the page', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await openView(page, '/#/admin');
    await page.getByRole('tab', { name: 'Users' }).click();
    const table = page.getByTestId('users-table');
    const uinCell = table.locator('span.mono', { hasText: new RegExp(`^${ADMIN.uin}$`) });
    await uinCell.waitFor();
    // Scrolled all the way to the actions column.
    await table
      .locator('.n-scrollbar-container')
      .last()
      .evaluate((box) => {
        (box as unknown as { scrollLeft: number; scrollWidth: number }).scrollLeft = (
          box as unknown as { scrollWidth: number }
        ).scrollWidth;
      });
    await table.getByRole('button', { name: `Actions ${ADMIN.uin}`, exact: true }).waitFor();
    const tableBox = await table.boundingBox();
    const uinBox = await uinCell.boundingBox();
    expect(tableBox && uinBox).toBeTruthy();
    expect(uinBox!.x).toBeGreaterThanOrEqual(tableBox!.x);
    expect(uinBox!.x + uinBox!.width).toBeLessThanOrEqual(tableBox!.x + tableBox!.width);
    expect(await inViewport(uinCell)).toBe(true);
    const overflow = await page.evaluate(() => {
      const root = (
        globalThis as unknown as {
          document: { documentElement: { scrollWidth: number; clientWidth: number } };
        }
      ).document.documentElement;
      return root.scrollWidth - root.clientWidth;
    });
    expect(overflow).toBe(0);
    expect(await a11yViolations(page)).toEqual([]);
    await page.screenshot({ path: 'test-artifacts/screenshots/stuck-4-users-scrolled-1280.png' });

    // The Apps row keeps every button inside the table.
    await page.getByRole('tab', { name: 'OAuth 2 applications' }).click();
    const row = page.locator('tr', { hasText: 'Library' }).first();
    await row.waitFor();
    const appsBox = await page.locator('.n-data-table').first().boundingBox();
    for (const button of await row.getByRole('button').all()) {
      await button.scrollIntoViewIfNeeded();
      const box = await button.boundingBox();
      expect(box).toBeTruthy();
      expect(box!.x + box!.width).toBeLessThanOrEqual(appsBox!.x + appsBox!.width + 1);
    }
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('item 5: finding people', () => {
  it('at 1280×800 finds a student by part of their name', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    const created = await page.request.post('/v1/admin/users', {
      data: { uin: 3_100_005, password: 'a fine long password 5', user_group: 'user', name: 'Li Xiaohua' },
      headers: { 'content-type': 'application/json', origin: sso.baseUrl },
    });
    expect(created.status()).toBe(200);
    await openView(page, '/#/admin');
    await page.getByRole('tab', { name: 'Users' }).click();
    const table = page.getByTestId('users-table');
    await table.waitFor();
    await page.getByLabel('Search by UIN or name').fill('xiaohua');
    await expect.poll(() => table.innerText()).toContain('1 user');
    expect(await table.innerText()).toContain('Li Xiaohua');
    expect(await table.locator('span.mono', { hasText: /^3100005$/ }).count()).toBe(1);
    expect(await a11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('item 8: authenticator set-up on a phone', () => {
  it('at 375 px in Chinese on a touch screen: the key in groups of four with Copy, an otpauth link, and Cancel', async () => {
    const user = { uin: 3_100_008, password: 'phone-password-38' };
    await sso.addUser(user.uin, 'user', user.password);
    const context = await browser.newContext({
      baseURL: sso.baseUrl,
      locale: 'zh-CN',
      viewport: { width: 375, height: 812 },
      hasTouch: true,
      isMobile: true,
    });
    const page = await context.newPage();
    await signInByApi(page, user);
    await openView(page, '/#/account');
    const card = page.getByTestId('second-factors');
    await card.getByRole('button', { name: '设置身份验证器应用' }).click();
    const secretEl = card.getByTestId('totp-secret');
    await secretEl.waitFor();
    const groups = await secretEl.locator('span').allTextContents();
    expect(groups.length).toBeGreaterThan(1);
    expect(groups.slice(0, -1).every((group) => group.length === 4)).toBe(true);
    expect(await card.getByRole('button', { name: '复制密钥' }).isVisible()).toBe(true);
    const open = card.getByRole('link', { name: '在身份验证器应用中打开' });
    expect(await open.getAttribute('href')).toMatch(/^otpauth:\/\/totp\//);
    expect(await a11yViolations(page)).toEqual([]);
    await page.screenshot({
      path: 'test-artifacts/screenshots/stuck-8-totp-setup-zh-375.png',
      fullPage: true,
    });
    await card.getByRole('button', { name: '取消', exact: true }).click();
    await card.getByRole('button', { name: '设置身份验证器应用' }).waitFor();
    expect(await card.getByTestId('totp-secret').count()).toBe(0);
    await context.close();
  });
});
