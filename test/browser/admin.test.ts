/**
 * The management page (docs/interface.md#admin-api) in a real browser against the real server: admins only,
 * creating an app and reading its shown-once secret (which then works at the token endpoint), and a CSV
 * import of 1,000 users.
 */
import type { Browser, Page } from 'playwright-core';
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
  type TestPage,
  userRowAction,
} from './helpers.js';

let sso: Sso;
let browser: Browser;

beforeAll(async () => {
  ({ sso, browser } = await startWorld());
}, 60_000);

afterAll(() => stopWorld({ sso, browser }));

/** Opens the management page afresh (a hash change alone would not reload the lists). */
async function openAdmin(page: Page): Promise<void> {
  await page.goto('/#/admin');
  await page.reload();
  await page.getByTestId('apps-table').waitFor();
}

async function exchange(
  clientId: string,
  clientSecret: string,
  code: string,
): Promise<{ status: number; code: number }> {
  const response = await fetch(`${sso.baseUrl}/v1/oauth2/get-access-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: clientId, client_secret: clientSecret, code }),
  });
  return { status: response.status, code: ((await response.json()) as { code: number }).code };
}

/** Runs the authorization flow in the page (already signed in) and answers the code. */
async function codeFor(page: Page, clientId: string): Promise<string> {
  await page.goto(authUrl({ client_id: clientId, redirect_uri: CALLBACK, state: 'admin-test' }));
  const authorize = page.getByRole('button', { name: 'Authorize', exact: true });
  await Promise.race([authorize.waitFor(), page.waitForURL(`${CALLBACK}**`)]);
  if (!page.url().startsWith(CALLBACK)) {
    await Promise.all([page.waitForURL(`${CALLBACK}**`), authorize.click()]);
  }
  return new URL(page.url()).searchParams.get('code') ?? '';
}

describe('GET /#/admin (management page)', () => {
  it('asks for sign-in, then shows the panels to an admin', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await page.goto('/#/admin');
    await signIn(page, ADMIN);
    await page.getByRole('tab', { name: 'OAuth 2 applications' }).waitFor();
    expect(await page.getByRole('tab', { name: 'Users' }).isVisible()).toBe(true);
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('tells a signed-in non-admin that the page is for admins only', async () => {
    const { page, context } = await openPage(browser, sso);
    await signInByApi(page, MEMBER);
    await page.goto('/#/admin');
    await page.getByTestId('admins-only').waitFor();
    expect(await page.getByText('Administrators only').isVisible()).toBe(true);
    expect(await page.getByRole('tab', { name: 'Users' }).count()).toBe(0);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'admin-forbidden');
    await context.close();
  });
});

describe('#/admin on a phone (375 px)', () => {
  /** Every button of the row is on screen, without scrolling sideways. */
  async function expectButtonsOnScreen(page: Page, testId: string, rowText: string): Promise<number> {
    const row = page.getByTestId(testId).getByRole('row').filter({ hasText: rowText });
    await row.waitFor();
    const boxes = await Promise.all(
      (await row.getByRole('button').all()).map((button) => button.boundingBox()),
    );
    for (const box of boxes) {
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    }
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    return boxes.length;
  }

  it('shows each app and user as a card whose actions fit the screen', async () => {
    const { page, context } = await openPage(browser, sso);
    await page.setViewportSize({ width: 375, height: 812 });
    await signInByApi(page, ADMIN);
    await openAdmin(page);
    expect(await expectButtonsOnScreen(page, 'apps-table', 'Library')).toBe(4);
    await page.getByRole('tab', { name: 'Users' }).click();
    // The row's actions are one menu button.
    expect(await expectButtonsOnScreen(page, 'users-table', String(MEMBER.uin))).toBeGreaterThanOrEqual(1);
    expect(await page.getByTestId('users-table').getAttribute('class')).toContain('table--stacked');
    // Back to a wide window, the same page is a table again, which scrolls inside itself if it must.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByTestId('users-table').locator('thead').getByText('UIN').waitFor();
    expect(await page.getByTestId('users-table').getAttribute('class')).not.toContain('table--stacked');
    await context.close();
  });
});

describe('OAuth 2 applications panel', () => {
  let tp: TestPage;

  beforeAll(async () => {
    tp = await openPage(browser, sso);
    await tp.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sso.baseUrl });
    await signInByApi(tp.page, ADMIN);
  });
  afterAll(async () => tp?.context.close());

  it('adds an app with the emoji picker and shows its Client ID and Client Secret once; the secret works', async () => {
    const { page, problems, foreignRequests } = tp;
    await page.goto('/#/admin');
    await page.getByTestId('add-app').click();
    const form = page.getByTestId('app-form');
    await form.waitFor();
    await form.getByLabel('Name', { exact: true }).fill('Timetable');

    // The picker loads its emoji data from this server, never from another host.
    const dataRequest = page.waitForRequest(
      (request) => request.url().includes('/assets/') && request.url().endsWith('.json'),
    );
    await form.getByRole('button', { name: 'Choose an emoji' }).click();
    expect(new URL((await dataRequest).url()).origin).toBe(sso.baseUrl);
    const firstEmoji = page.locator('emoji-picker').getByRole('menuitem').first();
    await firstEmoji.waitFor();
    await firstEmoji.click();
    await expect.poll(() => form.getByLabel('Emoji', { exact: true }).inputValue()).not.toBe('');

    // Client-side redirect URI check mirrors the server's: plain http only for loopback hosts.
    await form.getByTestId('redirect-uri-0').fill('http://timetable.example.edu/cb');
    await form.getByText('Use https').waitFor();
    await form.getByTestId('redirect-uri-0').fill(CALLBACK);
    expect(await form.getByText('Use https').count()).toBe(0);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'admin-add-app');

    await form.getByRole('button', { name: 'Create', exact: true }).click();
    const dialog = page.getByTestId('credentials-dialog');
    await dialog.waitFor();
    expect(await dialog.getByText('shown only once').isVisible()).toBe(true);
    const clientId = await page.getByTestId('client-id').inputValue();
    const clientSecret = await page.getByTestId('client-secret').inputValue();
    expect(clientId).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(clientSecret.length).toBeGreaterThanOrEqual(32);
    await dialog.getByRole('button', { name: 'Copy' }).first().click();
    await dialog.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'admin-credentials');
    await dialog.getByRole('button', { name: 'I have saved the secret' }).click();
    await dialog.waitFor({ state: 'hidden' });

    const row = page.getByTestId('apps-table').getByRole('row').filter({ hasText: clientId });
    await row.waitFor();
    expect(await row.locator('strong', { hasText: 'Timetable' }).isVisible()).toBe(true);
    await screenshots(page, 'admin-apps');

    const code = await codeFor(page, clientId);
    expect(await exchange(clientId, clientSecret, code)).toEqual({ status: 200, code: 0 });
    expect(problems).toEqual([]);
    expect(foreignRequests).toEqual([]);
  });

  it('makes a service account: the client-credentials switch, its scopes, no redirect URI; its token reads the admin API', async () => {
    const { page, problems } = tp;
    await openAdmin(page);
    await page.getByTestId('add-app').click();
    const form = page.getByTestId('app-form');
    await form.waitFor();
    await form.getByLabel('Name', { exact: true }).fill('Roster sync');
    await form.getByLabel('Emoji', { exact: true }).fill('🔄');
    // The homepage address is checked with the redirect URI rules, and the reason is said in words.
    const homepage = form.getByLabel('Homepage address');
    await homepage.fill('http://roster.example.edu/');
    await expect
      .poll(() => form.locator('#app-homepage-feedback').textContent())
      .toBe('Use https (plain http only for localhost, 127.0.0.1 or [::1]).');
    await homepage.fill('');
    expect(await form.getByLabel('Allowed scopes').count()).toBe(0);
    await form.getByTestId('app-client-credentials').click();
    const scopes = form.getByLabel('Allowed scopes');
    await scopes.fill('admin:users:read "quoted"');
    await form.getByText('Each scope: letters, digits and : . _ - only; at most 20.').waitFor();
    expect(await scopes.getAttribute('aria-invalid')).toBe('true');
    await scopes.fill('admin:users:read admin:audit:read');
    expect(await scopes.getAttribute('aria-invalid')).toBe('false');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    const dialog = page.getByTestId('credentials-dialog');
    await dialog.waitFor();
    const clientId = await page.getByTestId('client-id').inputValue();
    const clientSecret = await page.getByTestId('client-secret').inputValue();
    await dialog.getByRole('button', { name: 'I have saved the secret' }).click();
    const row = page.getByTestId('apps-table').getByRole('row').filter({ hasText: clientId });
    await row.getByText('Service account: admin:users:read admin:audit:read').waitFor();

    const token = await fetch(`${sso.baseUrl}/v1/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(token.status).toBe(200);
    const { access_token, scope } = (await token.json()) as { access_token: string; scope: string };
    expect(scope.split(' ').sort()).toEqual(['admin:audit:read', 'admin:users:read']);
    const users = await fetch(`${sso.baseUrl}/v1/admin/users?limit=1`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(users.status).toBe(200);
    const write = await fetch(`${sso.baseUrl}/v1/admin/users/${MEMBER.uin}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Not allowed' }),
    });
    expect(write.status).toBe(403);
    expect(problems).toEqual([]);
  });

  it('rotates a secret: the new one is shown once and works, the old one stops working', async () => {
    const { page } = tp;
    const created = await sso.addApp('Canteen', '🍜');
    await openAdmin(page);
    const row = page.getByTestId('apps-table').getByRole('row').filter({ hasText: created.client_id });
    await row.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret', exact: true }).click();
    const secretField = page.getByTestId('client-secret');
    await secretField.waitFor();
    const newSecret = await secretField.inputValue();
    expect(newSecret).not.toBe(created.client_secret);
    await page.getByRole('button', { name: 'I have saved the secret' }).click();

    const code = await codeFor(page, created.client_id);
    expect((await exchange(created.client_id, created.client_secret, code)).status).toBe(401);
    const code2 = await codeFor(page, created.client_id);
    expect(await exchange(created.client_id, newSecret, code2)).toEqual({ status: 200, code: 0 });
  });

  it('disables, enables and deletes an app after confirmation', async () => {
    const { page } = tp;
    const created = await sso.addApp('Sports', '⚽');
    await openAdmin(page);
    const row = page.getByTestId('apps-table').getByRole('row').filter({ hasText: created.client_id });
    await row.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disable', exact: true }).click();
    await row.getByText('Disabled', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Enable' }).click();
    await row.getByText('Active', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await row.waitFor({ state: 'detached' });
    const info = await fetch(
      `${sso.baseUrl}/v1/oauth2/app-info?client_id=${created.client_id}&redirect_uri=${encodeURIComponent(CALLBACK)}`,
    );
    expect(info.status).toBeGreaterThanOrEqual(400);
  });
});

describe('Users panel', () => {
  it('imports 1,000 users from CSV in chunks and reports every row', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await page.goto('/#/admin');
    await page.getByRole('tab', { name: 'Users' }).click();
    await page.getByTestId('users-table').waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'admin-users');

    const lines = ['uin,password,user_group'];
    for (let i = 0; i < 996; i++)
      lines.push(`${3_000_000 + i},pass-word-${i},${['member', 'user', 'admin'][i % 3]}`);
    lines.push(`${MEMBER.uin},another-password,member`); // exists
    lines.push('not-a-number,password-123,user'); // error (checked in the page)
    lines.push('3999999,short,user'); // error (password too short)
    lines.push('3999998,password-ok,janitor'); // error (unknown group)
    const csv = `${lines.join('\n')}\n`;

    await page.getByTestId('import-users').click();
    await page
      .getByTestId('import-file')
      .setInputFiles({ name: 'users.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    const calls: number[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/v1/admin/users/import')) {
        calls.push((JSON.parse(request.postData() ?? '{}') as { rows: unknown[] }).rows.length);
      }
    });
    await page.getByTestId('import-start').click();
    await page.getByText('Import finished').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('count-created').textContent()).toBe('996');
    expect(await page.getByTestId('count-exists').textContent()).toBe('1');
    expect(await page.getByTestId('count-error').textContent()).toBe('3');
    expect(calls.length).toBeGreaterThan(1);
    expect(Math.max(...calls)).toBeLessThanOrEqual(500);
    expect(calls.reduce((a, b) => a + b, 0)).toBe(997);
    const report = page.getByTestId('import-problems');
    expect(await report.getByText('uin must be a positive whole number').isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Download the report' }).getAttribute('href')).toMatch(
      /^blob:/,
    );
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'admin-import-report');
    await page.getByRole('button', { name: 'Done' }).click();

    // The imported users are there: search by uin prefix.
    await page.getByLabel('Search by UIN').fill('3000');
    await page.getByText('996 users').waitFor();
    const login = await fetch(`${sso.baseUrl}/v1/account/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uin: 3_000_007, password: 'pass-word-7' }),
    });
    expect(login.status).toBe(200);
    expect(problems).toEqual([]);
    await context.close();
  }, 180_000);

  it('adds a user, changes their group, resets the password and disables them', async () => {
    const { page, context } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    await page.goto('/#/admin');
    await page.getByRole('tab', { name: 'Users' }).click();
    await page.getByTestId('add-user').click();
    const form = page.getByTestId('user-form');
    await form.getByLabel('UIN', { exact: true }).fill('4000001');
    await form.getByLabel('Password', { exact: true }).fill('first-password');
    await form.getByRole('button', { name: 'Add user' }).click();
    await page.getByText('User 4000001 was added.').waitFor();

    await page.getByLabel('Search by UIN').fill('4000001');
    const row = page.getByTestId('users-table').getByRole('row').filter({ hasText: '4000001' });
    await row.waitFor();
    await userRowAction(page, 4000001, 'Reset password');
    await page.getByLabel('Password', { exact: true }).fill('second-password');
    await page.getByRole('dialog').getByRole('button', { name: 'Reset password' }).click();
    await page.getByText('The password of 4000001 was changed.').waitFor();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    const login = await fetch(`${sso.baseUrl}/v1/account/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uin: 4000001, password: 'second-password' }),
    });
    expect(login.status).toBe(200);

    await userRowAction(page, 4000001, 'Disable');
    await page.getByRole('dialog').getByRole('button', { name: 'Disable', exact: true }).click();
    await row.getByText('Disabled', { exact: true }).waitFor();
    await context.close();
  });

  it('keeps the searched list when an earlier, slower answer for the whole list arrives after it', async () => {
    const { page, context } = await openPage(browser, sso);
    await signInByApi(page, ADMIN);
    const isList = (url: URL): boolean => url.pathname === '/v1/admin/users';
    const isWholeList = (url: URL): boolean => isList(url) && !url.searchParams.has('search');
    // The first answer for the unfiltered list is held until the search's answer is on the screen.
    let releaseWhole: () => void = () => undefined;
    const wholeHeld = new Promise<void>((resolve) => (releaseWhole = resolve));
    let held = false;
    await page.route(isList, async (route) => {
      if (held || !isWholeList(new URL(route.request().url()))) return route.continue();
      held = true;
      await wholeHeld;
      return route.continue();
    });
    await page.goto('/#/admin');
    await page.getByRole('tab', { name: 'Users' }).click();
    await page.getByLabel('Search by UIN').fill(String(ADMIN.uin));
    const table = page.getByTestId('users-table');
    await table
      .getByRole('row')
      .filter({ hasText: String(ADMIN.uin) })
      .waitFor();
    expect(held).toBe(true);

    const wholeAnswer = page.waitForResponse((response) => isWholeList(new URL(response.url())));
    releaseWhole();
    await (await wholeAnswer).finished();
    // The stale answer has been read and would be on the screen by now.
    await page.waitForTimeout(300);
    const rows = await table.locator('tbody tr').allInnerTexts();
    expect(rows.length).toBeGreaterThan(0);
    for (const text of rows) expect(text).toContain(String(ADMIN.uin));
    await context.close();
  });
});
