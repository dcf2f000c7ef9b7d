/**
 * People, groups and the audit trail in a real browser (docs/interface.md#people-groups-and-audit): an admin
 * imports a class without passwords and prints its sign-in cards, a student redeems a card's code on
 * `#/reset` and signs in, and the admin finds every step in the Audit tab; bulk actions, Unlock and the
 * "cannot use this app" page.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  CALLBACK,
  SCREENSHOTS,
  authUrl,
  openPage,
  screenshots,
  seriousA11yViolations,
  signIn,
  signInByApi,
  type Sso,
  startWorld,
  stopWorld,
} from './helpers.js';

let sso: Sso;
let browser: Browser;
let app: { client_id: string; client_secret: string };

beforeAll(async () => {
  ({ sso, browser, app } = await startWorld());
}, 60_000);

afterAll(() => stopWorld({ sso, browser }));

const STUDENTS = [
  { uin: 2026301, name: 'Li Hua' },
  { uin: 2026302, name: '王芳' },
  { uin: 2026303, name: 'Zhang Wei' },
];
const STUDENT_PASSWORD = 'my own password 2026';

async function openUsers(page: Page): Promise<void> {
  await page.goto('/#/admin');
  await page.getByRole('tab', { name: 'Users' }).click();
  await page.getByTestId('users-table').waitFor();
}

describe('#/admin → CSV import without passwords → sign-in cards → #/reset → Audit', () => {
  let code = '';

  it('imports a class without passwords and prints one sign-in card per student', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await openUsers(page);
    const csv = [
      'uin,password,user_group,name,email,groups,expires_at',
      ...STUDENTS.map((s) => `${s.uin},,user,${s.name},,class-2026-3;choir,2029-07-01`),
    ].join('\n');
    await page.getByTestId('import-users').click();
    await page
      .getByTestId('import-file')
      .setInputFiles({ name: 'class.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    // The codes' lifetime is asked before the import: a week unless changed.
    const lifetime = page.getByTestId('import-dialog').getByLabel('Code valid for');
    expect(await lifetime.inputValue()).toBe('7');
    await lifetime.selectOption('5');
    const sent = page.waitForResponse((r) => r.url().endsWith('/v1/admin/users/import'));
    const before = Date.now();
    await page.getByTestId('import-start').click();
    const imported = (await (await sent).json()) as {
      data: { results: { reset_code_expires_at: string }[] };
    };
    for (const row of imported.data.results) {
      const days = (Date.parse(row.reset_code_expires_at) - before) / (24 * 3600 * 1000);
      expect(days).toBeGreaterThan(4.99);
      expect(days).toBeLessThan(5.01);
    }
    await page.getByText('Import finished').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('count-created').textContent()).toBe('3');

    await page.getByTestId('open-cards').click();
    const sheet = page.getByTestId('sign-in-cards');
    await sheet.waitFor();
    const cards = sheet.getByTestId('sign-in-card');
    await expect.poll(() => cards.count()).toBe(3);
    await sheet.locator('img').nth(2).waitFor();
    const first = cards.first();
    expect(await first.getByText('Li Hua').isVisible()).toBe(true);
    expect(await first.getByTestId('card-uin').textContent()).toBe(String(STUDENTS[0]?.uin));
    code = (await first.getByTestId('card-code').textContent()) ?? '';
    expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(await first.getByText(`${sso.baseUrl}/#/reset`).isVisible()).toBe(true);
    expect(await first.locator('img').getAttribute('alt')).toContain(`/#/reset?uin=${STUDENTS[0]?.uin}`);
    expect(await seriousA11yViolations(page)).toEqual([]);

    // The print view: only the cards, two columns on A4.
    await page.emulateMedia({ media: 'print' });
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, 'sign-in-cards-print.png'), fullPage: true });
    expect(await page.getByRole('button', { name: 'Print' }).isVisible()).toBe(false);
    expect(await page.getByTestId('users-table').isVisible()).toBe(false);
    expect(await first.isVisible()).toBe(true);
    const boxes = await Promise.all([0, 1].map(async (i) => cards.nth(i).boundingBox()));
    // Side by side: the second card starts to the right of the first, on the same row.
    expect(boxes[1]?.x).toBeGreaterThan((boxes[0]?.x ?? 0) + (boxes[0]?.width ?? 0) - 1);
    expect(boxes[1]?.y).toBe(boxes[0]?.y);
    await page.emulateMedia({ media: 'screen' });
    await screenshots(page, 'sign-in-cards');

    await page.getByTestId('close-cards').click();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('the student redeems the code on #/reset and signs in with the new password', async () => {
    const student = STUDENTS[0];
    if (!student) throw new Error('no student');
    const { page, context, problems } = await openPage(browser, sso, { width: 375, height: 812 });
    await page.goto(`/#/reset?uin=${student.uin}`);
    await page.getByRole('heading', { name: 'Set your password with a reset code' }).waitFor();
    expect(await page.getByLabel('UIN', { exact: true }).inputValue()).toBe(String(student.uin));
    expect(await seriousA11yViolations(page)).toEqual([]);
    // Typed as a student would: lower case, spaces instead of dashes.
    await page.getByLabel('Reset code', { exact: true }).fill(code.toLowerCase().replace(/-/g, ' '));
    await page.getByLabel('New password', { exact: true }).fill(STUDENT_PASSWORD);
    await page.getByLabel('Repeat the new password', { exact: true }).fill(STUDENT_PASSWORD);
    await screenshots(page, 'reset-page');
    await page.getByRole('button', { name: 'Set password', exact: true }).click();
    await page.getByTestId('reset-done').waitFor();

    // Used once: a second try is refused.
    const again = await page.request.post('/v1/account/password-reset', {
      data: { uin: student.uin, code, new_password: 'another password 99' },
      headers: { 'content-type': 'application/json' },
    });
    expect(again.status()).toBe(401);

    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    // The sign-in form starts with the uin the password was just set for.
    await expect.poll(() => page.getByLabel('UIN', { exact: true }).inputValue()).toBe(String(student.uin));
    await signIn(page, { uin: student.uin, password: STUDENT_PASSWORD });
    await page.getByTestId('my-uin').waitFor();
    await page.getByTestId('recent-sign-ins').waitFor();
    expect(await page.getByTestId('recent-sign-ins').getByText('Success').count()).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('the admin finds every step in the Audit tab, and the CSV export', async () => {
    const student = STUDENTS[0];
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await page.goto('/#/admin');
    await page.getByRole('tab', { name: 'Audit' }).click();
    const table = page.getByTestId('audit-table');
    await table.waitFor();
    await table.getByText('Users imported').first().waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);

    await page.getByLabel('UIN', { exact: true }).fill(String(student?.uin));
    await page.getByTestId('audit-filter').click();
    // The filtered list has replaced the whole one (the import's event names no student).
    await expect.poll(() => table.getByText('Users imported').count()).toBe(0);
    // Redeemed once, then refused once (the second try above).
    await expect.poll(() => table.getByText('Reset code redeemed').count()).toBe(2);
    expect(await table.getByText('Failure', { exact: true }).count()).toBe(1);
    for (const step of ['Reset code issued', 'Reset code redeemed', 'Sign-in']) {
      expect(await table.getByText(step, { exact: true }).count(), step).toBeGreaterThan(0);
    }
    await screenshots(page, 'admin-audit');

    const csvHref = await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
    expect(csvHref).toContain(`uin=${student?.uin}`);
    const csv = await (await page.request.get(csvHref ?? '')).text();
    expect(csv).toContain('reset_code_redeemed');
    expect(csv).not.toContain(code);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('#/admin Users: bulk actions, profile and Unlock', () => {
  it('adds a group tag to the selected users and shows it', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await openUsers(page);
    await page.getByLabel('Search by UIN').fill('20263');
    await page.getByTestId(`select-${STUDENTS[1]?.uin}`).waitFor();
    await page.getByTestId(`select-${STUDENTS[1]?.uin}`).check();
    await page.getByTestId(`select-${STUDENTS[2]?.uin}`).check();
    const bulk = page.getByTestId('bulk-actions');
    expect(await bulk.getByText('2 selected').isVisible()).toBe(true);
    await page.locator('#bulk-tag').fill('robotics');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByTestId('bulk-apply').click();
    await page.getByText('Changed 2 of 2.').waitFor();
    await expect.poll(() => page.getByTestId('users-table').getByText('robotics').count()).toBe(2);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows "locked until" for a locked account, and Unlock lets its owner in', async () => {
    const uin = STUDENTS[0]?.uin ?? 0;
    for (let i = 0; i < 5; i++) {
      await fetch(`${sso.baseUrl}/v1/account/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: sso.baseUrl },
        body: JSON.stringify({ uin, password: 'wrong guess!!' }),
      });
    }
    const { page, context } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await openUsers(page);
    await page.getByLabel('Search by UIN').fill(String(uin));
    await page.getByTestId(`locked-${uin}`).waitFor();
    await page.getByRole('button', { name: `Unlock ${uin}` }).click();
    await page.getByText(`${uin} can sign in again.`).waitFor();
    const response = await fetch(`${sso.baseUrl}/v1/account/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: sso.baseUrl },
      body: JSON.stringify({ uin, password: STUDENT_PASSWORD }),
    });
    expect(response.status).toBe(200);
    await context.close();
  });
});

describe('#/auth for an app open to some groups only', () => {
  it('tells a person outside them plainly, and the app gets access_denied', async () => {
    const admin = await openPage(browser, sso);
    await signInByApi(admin.page, ADMIN);
    const patch = await admin.page.request.patch(`/v1/admin/apps/${app.client_id}`, {
      data: { allowed_groups: ['teachers'] },
      headers: { 'content-type': 'application/json', origin: sso.baseUrl },
    });
    expect(patch.status()).toBe(200);
    await admin.context.close();

    const student = STUDENTS[0];
    const { page, context, problems } = await openPage(browser, sso, { locale: 'zh-CN' });
    await signInByApi(page, { uin: student?.uin ?? 0, password: STUDENT_PASSWORD });
    await page.goto(authUrl({ client_id: app.client_id, redirect_uri: CALLBACK, state: 'g1' }));
    await page.getByTestId('not-allowed').waitFor();
    expect(await page.getByRole('heading', { name: '你的账号无法使用 Library' }).isVisible()).toBe(true);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'auth-not-allowed');
    await Promise.all([
      page.waitForURL(`${CALLBACK}**`),
      page.getByRole('button', { name: '返回 Library' }).click(),
    ]);
    const url = new URL(page.url());
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe('g1');
    expect(problems).toEqual([]);
    await context.close();
  });
});
