/**
 * What is shown once is seen (docs/interface.md#second-factor, #people-groups-and-audit): recovery codes on a
 * phone come into view, focused, and stay until "I have saved these codes" is ticked; the sign-in cards view
 * keeps the keyboard inside it and asks before Escape closes it. Also the home page's greeting by name, and
 * axe (WCAG 2.2 AA and best practice) on the account, sign-in, reset and device pages' states at 375 px in
 * Chinese.
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
}, 180_000);

afterAll(() => stopWorld({ sso, browser }));

const PHONE_ZH = { locale: 'zh-CN', width: 375, height: 812 } as const;

/** True when the element's box lies inside the viewport (at least partly visible without scrolling). */
async function inViewport(locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const size = locator.page().viewportSize();
  if (!box || !size) return false;
  return box.y + box.height > 0 && box.y < size.height && box.x + box.width > 0 && box.x < size.width;
}

interface FocusedElement {
  testId: string | null;
  text: string;
  /** Whether it lies inside an element that `within` (a CSS selector) matches. */
  inside: boolean;
}

/** What has keyboard focus now: its test id, its text, and whether it is inside `within`. */
function focused(page: Page, within = ''): Promise<FocusedElement> {
  return page.evaluate((scope) => {
    interface El {
      getAttribute(name: string): string | null;
      textContent: string | null;
      closest(selector: string): El | null;
    }
    const active = (globalThis as unknown as { document: { activeElement: El | null } }).document
      .activeElement;
    return {
      testId: active?.getAttribute('data-testid') ?? null,
      text: (active?.textContent ?? '').trim(),
      inside: scope !== '' && active?.closest(scope) != null,
    };
  }, within);
}

/** Gives an existing person a display name through the admin API. */
async function nameUser(page: Page, uin: number, name: string): Promise<void> {
  const patched = await page.request.patch(`/v1/admin/users/${uin}`, {
    data: { name },
    headers: { 'content-type': 'application/json', origin: sso.baseUrl },
  });
  expect(patched.status()).toBe(200);
}

describe('recovery codes after the first second factor, at 375 px in Chinese', () => {
  it('are scrolled into view and focused, and stay until "I have saved these codes" is ticked', async () => {
    const user = { uin: 3_200_001, password: 'phone-password-3201' };
    await sso.addUser(user.uin, 'user', user.password);
    const { page, context, problems } = await openPage(browser, sso, PHONE_ZH);
    await signInByApi(page, user);
    await openView(page, '/#/account');
    const card = page.getByTestId('second-factors');
    await card.getByRole('button', { name: '设置身份验证器应用' }).click();
    const secret = (await card.getByTestId('totp-secret').textContent())!.replace(/\s+/g, '');
    await card
      .getByLabel('应用显示的验证码', { exact: true })
      .fill(generateSync({ secret, epoch: Math.floor(Date.now() / 1000) }));
    await card.getByRole('button', { name: '确认', exact: true }).click();

    const codes = page.getByTestId('recovery-codes');
    await codes.waitFor();
    await expect.poll(async () => (await focused(page)).testId).toBe('recovery-codes');
    await expect.poll(() => inViewport(codes.locator('li').first())).toBe(true);
    expect(await codes.locator('li').count()).toBe(10);
    await codes.getByRole('button', { name: '复制恢复码' }).waitFor();
    expect(await codes.getByRole('link', { name: '下载为文本文件' }).getAttribute('download')).toBe(
      'campus-sso-recovery-codes.txt',
    );
    const saved = codes.getByLabel('我已保存这些恢复码');
    expect(await saved.isChecked()).toBe(false);
    expect(await a11yViolations(page)).toEqual([]);
    await page.screenshot({ path: 'test-artifacts/screenshots/shown-once-recovery-codes-zh-375.png' });

    // "Done" without the tick: the codes stay, and the box says why and takes focus.
    await codes.getByRole('button', { name: '完成', exact: true }).click();
    await codes.getByText('请先勾选“我已保存这些恢复码”：它们不会再次显示。').waitFor();
    expect(await codes.isVisible()).toBe(true);
    await expect.poll(async () => (await focused(page)).testId).toBe('recovery-saved');
    expect(await saved.getAttribute('aria-invalid')).toBe('true');
    expect(await a11yViolations(page)).toEqual([]);

    await saved.check();
    await codes.getByRole('button', { name: '完成', exact: true }).click();
    await codes.waitFor({ state: 'detached' });
    await card.getByTestId('recovery-left').getByText('10').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  }, 180_000);
});

describe('the sign-in cards view at 1280×800', () => {
  it('takes focus, keeps Tab inside, and closes with Escape only after a confirmation', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await openView(page, '/#/admin');
    await page.getByRole('tab', { name: 'Users' }).click();
    await page.getByTestId('users-table').waitFor();
    await page.getByTestId('import-users').click();
    const csv = 'uin,password,user_group,name\n3200010,,user,Wang Fang\n3200011,,user,Zhao Lei\n';
    await page
      .getByTestId('import-file')
      .setInputFiles({ name: 'class.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByTestId('import-start').click();
    await page.getByText('Import finished').waitFor({ timeout: 60_000 });
    await page.getByTestId('open-cards').click();

    const sheet = page.getByTestId('sign-in-cards');
    await sheet.waitFor();
    await expect.poll(() => sheet.getByTestId('sign-in-card').count()).toBe(2);
    await expect.poll(async () => (await focused(page)).text).toBe('Sign-in cards');

    // Tab and Shift+Tab never leave the sheet, however often they are pressed.
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      expect((await focused(page, '[data-testid="sign-in-cards"]')).inside).toBe(true);
    }
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Shift+Tab');
      expect((await focused(page, '[data-testid="sign-in-cards"]')).inside).toBe(true);
    }

    // Escape asks first; the safe answer has focus, and Escape again keeps the cards.
    await page.keyboard.press('Escape');
    const confirm = sheet.getByTestId('close-confirm');
    await confirm.getByText('Close the sign-in cards?').waitFor();
    await confirm.getByText('The reset codes on them are not shown again. Print the cards first.').waitFor();
    // Focus moves to the safe answer once the question has rendered.
    await expect.poll(async () => (await focused(page)).text).toBe('Keep open');
    expect(await a11yViolations(page)).toEqual([]);
    await page.screenshot({ path: 'test-artifacts/screenshots/shown-once-cards-confirm-1280.png' });
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    expect(await sheet.isVisible()).toBe(true);

    // Escape, then "Close": the sheet goes, and focus is back in the import dialog it came from.
    await page.keyboard.press('Escape');
    await confirm.getByRole('button', { name: 'Close', exact: true }).click();
    await sheet.waitFor({ state: 'detached' });
    await expect.poll(async () => (await focused(page, '[role="dialog"]')).inside).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  }, 180_000);
});

describe('the home page greets by name', () => {
  it('at 375 px in Chinese: “欢迎，李华” for a person with a name; the uin for one without', async () => {
    const admin = await openPage(browser, sso);
    await signInByApi(admin.page, ADMIN);
    await sso.addUser(3_200_020, 'user', 'a long password for li hua');
    await nameUser(admin.page, 3_200_020, '李华');
    await admin.context.close();

    const { page, context, problems } = await openPage(browser, sso, PHONE_ZH);
    await signInByApi(page, { uin: 3_200_020, password: 'a long password for li hua' });
    await openView(page, '/#/');
    await page.getByRole('heading', { level: 1, name: '欢迎，李华' }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    await context.close();

    const plain = await openPage(browser, sso, PHONE_ZH);
    await signInByApi(plain.page, ADMIN);
    await openView(plain.page, '/#/');
    await plain.page.getByRole('heading', { level: 1, name: `欢迎，${ADMIN.uin}` }).waitFor();
    expect([...problems, ...plain.problems]).toEqual([]);
    await plain.context.close();
  });
});

describe('axe on every state of the account, sign-in, reset and device pages (375 px, Chinese)', () => {
  it('sign-in, consent, the account page with its forms open, #/reset, #/device and the signed-out page', async () => {
    const user = { uin: 3_200_030, password: 'axe password for thirty' };
    await sso.addUser(user.uin, 'user', user.password);
    const { page, context, problems } = await openPage(browser, sso, PHONE_ZH);
    const states: Record<string, string[]> = {};
    const check = async (name: string): Promise<void> => {
      states[name] = await a11yViolations(page);
    };

    await page.goto(authUrl({ client_id: app.client_id, redirect_uri: CALLBACK, state: 'axe' }));
    await page.locator('#login-uin').waitFor();
    await check('auth: sign-in');
    await page.getByRole('button', { name: '登录', exact: true }).click();
    await page.locator('#login-uin[aria-invalid="true"]').waitFor();
    await check('auth: sign-in refused (empty fields)');
    await page.locator('#login-uin').fill(String(user.uin));
    await page.locator('#login-password').fill(user.password);
    await page.getByRole('button', { name: '登录', exact: true }).click();
    await page.getByRole('button', { name: '授权', exact: true }).waitFor();
    await check('auth: consent');

    await openView(page, '/#/account');
    await page.getByTestId('second-factors').waitFor();
    await check('account');
    await page.getByRole('button', { name: '设置身份验证器应用' }).click();
    await page.getByTestId('totp-setup').waitFor();
    await check('account: authenticator set-up');
    await page.getByRole('button', { name: '确认', exact: true }).click();
    await page.locator('#totp-code[aria-invalid="true"]').waitFor();
    await check('account: authenticator code refused');
    await page.getByTestId('totp-setup').getByRole('button', { name: '取消', exact: true }).click();

    await openView(page, '/#/device');
    await page.locator('main[data-view="/device"] h1').waitFor();
    await check('device: code entry');

    await openView(page, '/#/account');
    await page.getByRole('button', { name: '退出登录', exact: true }).first().click();
    await page.getByRole('heading', { name: '你已退出登录' }).waitFor();
    await check('signed out');

    await openView(page, '/#/reset');
    await page.locator('#reset-code').waitFor();
    await check('reset');
    await page.getByRole('button', { name: '设置密码' }).click();
    await page.locator('[aria-invalid="true"]').first().waitFor();
    await check('reset: refused (empty fields)');

    expect(states).toEqual(Object.fromEntries(Object.keys(states).map((name) => [name, []])));
    expect(problems).toEqual([]);
    await context.close();
  }, 180_000);
});
