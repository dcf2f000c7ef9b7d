/**
 * `#/admin` for a class rollout (docs/interface.md#people-groups-and-audit, #delegated-administration), in
 * Chromium at 1280×800 (en-US) and 375 px (zh-CN), with axe (WCAG 2.2 AA and best practice) on each new state:
 * tables that fit, the row menu, search and "select all N matching", reset codes with a chosen lifetime on
 * branded cards, audit details as sentences, and what a helpdesk member and an auditor see.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  a11yViolations,
  openPage,
  openView,
  signInByApi,
  type Sso,
  startSso,
  launchBrowser,
  userRowAction,
} from './helpers.js';

const LOGO =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const SCHOOL = 'Riverside High School';
const CLASS = 'class-7a';
/** 25 students: more than the table's first page of 20. */
const STUDENTS = Array.from({ length: 25 }, (_, i) => ({
  uin: 5_200_001 + i,
  name: `Student ${String(i + 1).padStart(2, '0')}`,
}));
const HELPDESK = { uin: 5_100_001, password: 'helpdesk-password-51' } as const;
const AUDITOR = { uin: 5_100_002, password: 'auditor-password-52' } as const;
const PHONE_ZH = { locale: 'zh-CN', width: 375, height: 812 } as const;

let sso: Sso;
let browser: Browser;

beforeAll(async () => {
  [sso, browser] = await Promise.all([
    startSso({
      env: { BRAND_NAME: SCHOOL, BRAND_NAME_ZH: '河畔中学', BRAND_COLOR: '#7a1c1c', BRAND_LOGO_URL: LOGO },
    }),
    launchBrowser(),
  ]);
  await sso.addUser(ADMIN.uin, 'admin', ADMIN.password);
  for (const [who, role] of [
    [HELPDESK, `helpdesk:${CLASS}`],
    [AUDITOR, `auditor:${CLASS}`],
  ] as const) {
    await sso.cli(
      ['user', 'add', '--uin', String(who.uin), '--group', 'user', '--password-stdin', '--role', role],
      who.password,
    );
  }
  const { page, context } = await openPage(browser, sso);
  await signInByApi(page, ADMIN);
  const imported = await page.request.post('/v1/admin/users/import', {
    data: {
      rows: STUDENTS.map((s, i) => ({
        line: i + 2,
        uin: s.uin,
        password: '',
        user_group: 'user',
        name: s.name,
        groups: CLASS,
      })),
    },
    headers: { 'content-type': 'application/json', origin: sso.baseUrl },
  });
  expect(imported.status()).toBe(200);
  await context.close();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await sso?.stop();
});

async function openUsers(page: Page, tab = 'Users'): Promise<void> {
  await openView(page, '/#/admin');
  await page.getByRole('tab', { name: tab }).click();
  await page.getByTestId('users-table').locator('tbody tr').first().waitFor();
}

/** How far the page or the element is wider than the box that holds it (0: nothing sticks out). */
function overflow(page: Page, selector: string): Promise<number> {
  return page.evaluate((sel) => {
    const doc = (
      globalThis as unknown as {
        document: {
          documentElement: { scrollWidth: number; clientWidth: number };
          querySelector(s: string): { scrollWidth: number; clientWidth: number } | null;
        };
      }
    ).document;
    const box = doc.querySelector(sel);
    return Math.max(
      doc.documentElement.scrollWidth - doc.documentElement.clientWidth,
      box ? box.scrollWidth - box.clientWidth : 0,
    );
  }, selector);
}

function focusedText(page: Page): Promise<string> {
  return page.evaluate(
    () =>
      (globalThis as unknown as { document: { activeElement: { textContent: string | null } | null } })
        .document.activeElement?.textContent ?? '',
  );
}

describe('item 4: admin tables fit the screen', () => {
  it('at 1280×800 the UIN stays pinned left and the row menu right; the menu works from the keyboard', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await openUsers(page);
    const table = page.getByTestId('users-table');
    const student = STUDENTS[0]!;
    const uinCell = table.locator('span.mono', { hasText: new RegExp(`^${student.uin}$`) });
    await uinCell.waitFor();
    await table
      .locator('.n-scrollbar-container')
      .last()
      .evaluate((box) => {
        const el = box as unknown as { scrollLeft: number; scrollWidth: number };
        el.scrollLeft = el.scrollWidth;
      });
    const tableBox = (await table.boundingBox())!;
    const menuButton = page.getByRole('button', { name: `Actions ${student.uin}`, exact: true });
    for (const box of [await uinCell.boundingBox(), await menuButton.boundingBox()]) {
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(tableBox.x);
      expect(box!.x + box!.width).toBeLessThanOrEqual(tableBox.x + tableBox.width);
      expect(box!.y + box!.height).toBeLessThanOrEqual(800 + 2000);
    }
    expect(await overflow(page, 'section.users')).toBe(0);

    // WAI-ARIA menu button: Enter opens on the first item, ↓ moves, Escape closes back to the button.
    await menuButton.focus();
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu');
    await menu.waitFor();
    expect(await menuButton.getAttribute('aria-expanded')).toBe('true');
    // Focus moves when the menu has rendered its items: wait for it, as a screen reader user would.
    await expect.poll(async () => (await focusedText(page)).trim()).toBe('Profile');
    await page.keyboard.press('ArrowDown');
    await expect.poll(async () => (await focusedText(page)).trim()).toBe('Reset code');
    expect(await a11yViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    expect(
      await menuButton.evaluate(
        (el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement,
      ),
    ).toBe(true);
    // Every item of the menu is inside the window.
    await menuButton.click();
    await menu.getByRole('menuitem', { name: 'Reset code', exact: true }).waitFor();
    const items = await menu.getByRole('menuitem').all();
    expect(items.length).toBeGreaterThanOrEqual(4);
    for (const item of items) {
      const box = (await item.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(1280);
    }
    await page.keyboard.press('Escape');

    // The Apps row keeps all its buttons inside the table.
    await page.getByRole('tab', { name: 'OAuth 2 applications' }).click();
    expect(await overflow(page, 'section.apps')).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('at 375 px in Chinese each user is a card: the UIN in view, nothing wider than the screen', async () => {
    const { page, context, problems } = await openPage(browser, sso, PHONE_ZH);
    await signInByApi(page, ADMIN);
    await openUsers(page, '用户');
    const student = STUDENTS[1]!;
    const uinCell = page
      .getByTestId('users-table')
      .locator('span.mono', { hasText: new RegExp(`^${student.uin}$`) });
    await uinCell.scrollIntoViewIfNeeded();
    const box = (await uinCell.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(375);
    expect(await overflow(page, 'section.users')).toBe(0);
    const menuButton = page.getByRole('button', { name: new RegExp(` ${student.uin}$`) }).last();
    await menuButton.click();
    await page.getByRole('menu').getByRole('menuitem').first().waitFor();
    for (const item of await page.getByRole('menu').getByRole('menuitem').all()) {
      const itemBox = (await item.boundingBox())!;
      expect(itemBox.x).toBeGreaterThanOrEqual(0);
      expect(itemBox.x + itemBox.width).toBeLessThanOrEqual(375);
    }
    expect(await a11yViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('item 5: finding people', () => {
  it('finds by name and by group tag, selects all 25 matching, and says the count before acting', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await openUsers(page);
    const table = page.getByTestId('users-table');
    await page.getByLabel('Search by UIN or name').fill('student 07');
    await expect.poll(() => table.innerText()).toContain('1 user');
    expect(await table.innerText()).toContain('Student 07');
    await page.getByLabel('Search by UIN or name').fill('');
    await page.getByLabel('Group tag', { exact: true }).fill(CLASS);
    await expect.poll(() => table.innerText()).toContain('25 users');

    await page.getByLabel('Select every user on this page').check();
    const offer = page.getByTestId('select-all-matching');
    await offer.getByText('All 20 users on this page are selected.').waitFor();
    await offer.getByRole('button', { name: 'Select all 25 matching users' }).click();
    const bulk = page.getByTestId('bulk-actions');
    await bulk.getByText('25 selected').waitFor();
    await page.locator('#bulk-tag').fill('robotics');
    const apply = bulk.getByRole('button', { name: 'Apply to 25 users' });
    await apply.click();
    const confirm = page.getByRole('dialog');
    await confirm.getByText('Act on 25 users?').waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: 'Apply to 25 users' }).click();
    await page.getByText('Changed 25 of 25.').waitFor();
    const tagged = await page.request.get('/v1/admin/users?tag=robotics&limit=100');
    expect(((await tagged.json()) as { data: { total: number } }).data.total).toBe(25);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('item 6: sign-in cards for a class rollout', () => {
  it('gives the selected users new codes valid for the days chosen, on cards in the school’s name, logo and colour', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await openUsers(page);
    const chosen = STUDENTS.slice(2, 5);
    for (const s of chosen) await page.getByTestId(`select-${s.uin}`).check();
    await page.getByTestId('bulk-action').click();
    await page.locator('.n-base-select-option', { hasText: 'New reset codes and cards' }).click();
    expect(await page.getByLabel('Code valid for').inputValue()).toBe('7');
    await page.getByLabel('Code valid for').selectOption('3');
    expect(await a11yViolations(page)).toEqual([]);
    const answers: { expires_at: string }[] = [];
    page.on('response', async (response) => {
      if (response.url().endsWith('/reset-code'))
        answers.push(((await response.json()) as { data: { expires_at: string } }).data);
    });
    const before = Date.now();
    await page.getByRole('button', { name: 'Create 3 reset codes and cards' }).click();
    const sheet = page.getByTestId('sign-in-cards');
    await sheet.waitFor();
    const cards = sheet.getByTestId('sign-in-card');
    await expect.poll(() => cards.count()).toBe(3);
    await expect.poll(() => answers.length).toBe(3);
    for (const answer of answers) {
      const days = (Date.parse(answer.expires_at) - before) / (24 * 3600 * 1000);
      expect(days).toBeGreaterThan(2.99);
      expect(days).toBeLessThan(3.01);
    }
    for (const card of await cards.all()) {
      const brand = card.getByTestId('card-brand');
      expect(await brand.getByText(SCHOOL).isVisible()).toBe(true);
      expect(await brand.locator('img').getAttribute('src')).toBe(LOGO);
      expect(
        await card.evaluate(
          (el) => (el as unknown as { style: { borderTopColor: string } }).style.borderTopColor,
        ),
      ).toBe('rgb(122, 28, 28)');
    }
    expect(await cards.first().getByText(chosen[0]!.name).isVisible()).toBe(true);
    expect(await a11yViolations(page)).toEqual([]);
    await page.screenshot({ path: 'test-artifacts/screenshots/admin-cards-branded-1280.png' });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('the one-person reset code asks for its lifetime first, a week unless changed', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await openUsers(page);
    const student = STUDENTS[6]!;
    await userRowAction(page, student.uin, 'Reset code');
    const dialog = page.getByTestId('reset-code');
    expect(await dialog.getByLabel('Code valid for').inputValue()).toBe('7');
    const answer = page.waitForResponse((r) => r.url().endsWith(`/users/${student.uin}/reset-code`));
    await dialog.getByRole('button', { name: 'Create the reset code' }).click();
    const { data } = (await (await answer).json()) as { data: { expires_at: string } };
    const days = (Date.parse(data.expires_at) - Date.now()) / (24 * 3600 * 1000);
    expect(Math.round(days)).toBe(7);
    await dialog.getByTestId('reset-code-value').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('item 11: audit details read as sentences', () => {
  it('at 1280×800 the bulk change says what it did, its 25 UINs collapsed behind their count', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await openView(page, '/#/admin');
    await page.getByRole('tab', { name: 'Audit' }).click();
    const table = page.getByTestId('audit-table');
    await table.getByText('Bulk action: add a group tag.', { exact: false }).first().waitFor();
    const uins = table.getByTestId('audit-uins').first();
    await uins.getByText('Users: 25 accounts (show)').waitFor();
    expect(await uins.getByText(String(STUDENTS[24]!.uin), { exact: false }).isVisible()).toBe(false);
    await uins.getByText('Users: 25 accounts (show)').click();
    expect(await uins.getByText(String(STUDENTS[24]!.uin), { exact: false }).isVisible()).toBe(true);
    expect(await table.innerText()).toContain('Valid for 3 days.');
    expect(await a11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('at 375 px in Chinese the same event is a Chinese sentence', async () => {
    const { page, context, problems } = await openPage(browser, sso, PHONE_ZH);
    await signInByApi(page, ADMIN);
    await openView(page, '/#/admin');
    await page.getByRole('tab', { name: '审计' }).click();
    const table = page.getByTestId('audit-table');
    await table.getByText('批量操作：添加分组标签。', { exact: false }).first().waitFor();
    await table.getByText('用户：25 个账号（展开）').first().waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('#/admin by role', () => {
  it('a helpdesk member sees Users with their class and the actions that get people back in, and Audit', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, HELPDESK);
    await openView(page, '/#/admin');
    const tabs = page.getByRole('tab');
    await expect.poll(() => tabs.allInnerTexts()).toEqual(['Users', 'Audit']);
    const table = page.getByTestId('users-table');
    await table.locator('tbody tr').first().waitFor();
    await expect.poll(() => table.innerText()).toContain('25 users');
    expect(await table.innerText()).not.toContain(String(ADMIN.uin));
    expect(await page.getByTestId('add-user').count()).toBe(0);
    expect(await page.getByTestId('import-users').count()).toBe(0);
    await page.getByRole('button', { name: `Actions ${STUDENTS[8]!.uin}`, exact: true }).click();
    // The menu opens on the next frame: wait for its items rather than read an empty one.
    await expect
      .poll(() => page.getByRole('menu').getByRole('menuitem').allInnerTexts())
      .toEqual(['Reset code', 'Reset password', 'Sign out everywhere']);
    expect(await a11yViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    // The one bulk action is new codes and cards; it works for their people.
    await page.getByTestId(`select-${STUDENTS[8]!.uin}`).check();
    await page.getByRole('button', { name: 'Create 1 reset code and card' }).click();
    await page.getByTestId('sign-in-card').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a helpdesk member reads the audit events of their people in the Audit tab', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, HELPDESK);
    const student = STUDENTS[9]!.uin;
    const unlocked = await page.request.post(`/v1/admin/users/${student}/unlock`, {
      headers: { origin: sso.baseUrl },
    });
    expect(unlocked.status()).toBe(200);
    await openView(page, '/#/admin');
    await page.getByRole('tab', { name: 'Audit' }).click();
    const audit = page.getByTestId('audit-table');
    await audit.locator('tbody tr').first().waitFor();
    await expect.poll(() => audit.innerText()).toContain(String(student));
    expect(await a11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('an auditor sees Users and Audit, read only', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, AUDITOR);
    await openView(page, '/#/admin');
    await expect.poll(() => page.getByRole('tab').allInnerTexts()).toEqual(['Users', 'Audit']);
    const table = page.getByTestId('users-table');
    await table.locator('tbody tr').first().waitFor();
    expect(await table.getByRole('button', { name: /^Actions / }).count()).toBe(0);
    expect(await table.getByRole('checkbox').count()).toBe(0);
    expect(await a11yViolations(page)).toEqual([]);
    await page.getByRole('tab', { name: 'Audit' }).click();
    await page.getByTestId('audit-table').locator('tbody tr').first().waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('an admin gives a teacher the helpdesk role for a class in the profile dialog', async () => {
    const teacher = STUDENTS[20]!;
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await openUsers(page);
    await page.getByLabel('Search by UIN or name').fill(String(teacher.uin));
    await expect.poll(() => page.getByTestId('users-table').innerText()).toContain('1 user');
    await userRowAction(page, teacher.uin, 'Profile');
    const dialog = page.getByTestId('user-profile');
    await dialog.getByTestId('add-role').click();
    await dialog.getByLabel('Role', { exact: true }).selectOption('helpdesk');
    await dialog.getByLabel('Groups it covers').fill('class-7b');
    expect(await a11yViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText(`Saved the profile of ${teacher.uin}.`).waitFor();
    const view = await page.request.get(`/v1/admin/users?search=${teacher.uin}`);
    const body = (await view.json()) as { data: { users: { roles: unknown }[] } };
    expect(body.data.users[0]?.roles).toEqual([{ role: 'helpdesk', groups: ['class-7b'] }]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
