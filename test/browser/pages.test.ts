/**
 * "Pages for everyone" in Chromium against the real server: every item at 375 px in Chinese and at 1280 px
 * in English, driven by the visible labels of that language, with axe (every rule of WCAG 2.0–2.2 A/AA and
 * best practice) on every page and state, and keyboard-only runs of sign-in, consent and the launcher.
 * Screenshots: test-artifacts/screenshots/pages-*.
 */
import { join } from 'node:path';
import { type APIRequestContext, type Browser, type Page, request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import en, { type MessageSchema } from '../../web/src/locales/en.js';
import {
  a11yViolations,
  ADMIN,
  authUrl,
  CALLBACK,
  launchBrowser,
  openPage,
  openView,
  SCREENSHOTS,
  signIn,
  signInByApi,
  type Sso,
  startSso,
  type TestPage,
} from './helpers.js';

const BRAND = '实验中学 Campus';
const HELPDESK = 'https://help.example.edu/';
/** A 1×1 PNG, as BRAND_LOGO_URL may be (the CSP allows data: images). */
const LOGO =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const LISTED_HOME = 'https://canteen.example.edu/menu';
// zh-CN.ts imports './en' the bundler's way; loaded at run time so the Node type check does not follow it.
const ZH_CN = 'zh-CN';
const zhCN = ((await import(`../../web/src/locales/${ZH_CN}.ts`)) as { default: MessageSchema }).default;

/** The page's own globals, typed just enough for the functions run inside it (no DOM lib here). */
interface PageElement {
  readonly tagName: string;
  readonly id: string;
  readonly textContent: string | null;
  getAttribute(name: string): string | null;
}
type PageGlobals = {
  document: { activeElement: PageElement | null };
  getComputedStyle(element: unknown): { borderTopColor: string; boxShadow: string; color: string };
};

let sso: Sso;
let browser: Browser;
let admin: APIRequestContext;
let library: { client_id: string; client_secret: string };
let canteen: { client_id: string; client_secret: string };

/** The admin API with an admin's session (the browser-session CSRF rule wants Origin). */
async function adminCall(method: 'PATCH' | 'POST', path: string, data: unknown): Promise<void> {
  const response = await admin.fetch(path, { method, data });
  if (!response.ok()) throw new Error(`${method} ${path}: ${response.status()} ${await response.text()}`);
}

beforeAll(async () => {
  [sso, browser] = await Promise.all([
    startSso({ env: { BRAND_NAME: BRAND, BRAND_LOGO_URL: LOGO, BRAND_COLOR: '#7a1c1c', HELPDESK } }),
    launchBrowser(),
  ]);
  await sso.addUser(ADMIN.uin, 'admin', ADMIN.password);
  library = await sso.addApp('Library', '📚');
  canteen = await sso.addApp('Canteen', '🍜', ['https://canteen.example.edu/cb']);
  admin = await request.newContext({ baseURL: sso.baseUrl, extraHTTPHeaders: { origin: sso.baseUrl } });
  const login = await admin.post('/v1/account/login', { data: { uin: ADMIN.uin, password: ADMIN.password } });
  expect(login.ok()).toBe(true);
  await adminCall('PATCH', `/v1/admin/apps/${canteen.client_id}`, {
    listed: true,
    homepage_url: LISTED_HOME,
  });
}, 90_000);

afterAll(async () => {
  await admin?.dispose();
  await browser?.close();
  await sso?.stop();
});

/** A vue-i18n message with its `{name}` parameters filled; `count` picks a plural form (`a | b | c`). */
function fmt(message: string, params: Record<string, string | number> = {}, count?: number): string {
  const forms = message.split(' | ');
  const chosen =
    count === undefined || forms.length === 1
      ? forms[0]
      : forms.length === 2
        ? forms[count === 1 ? 0 : 1]
        : forms[Math.min(count, 2)];
  return (chosen ?? '').replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? ''));
}

/** WCAG 2.x contrast of an `rgb(r, g, b)` colour against white. */
function contrastWithWhite(rgb: string): number {
  const [r = 0, g = 0, b = 0] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((part) => {
    const c = Number(part) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05);
}

const VARIANTS = [
  {
    name: 'zh-CN at 375 px',
    tag: 'zh-375',
    locale: 'zh-CN',
    width: 375,
    height: 812,
    L: zhCN,
    uinBase: 31_000,
  },
  {
    name: 'en-US at 1280 px',
    tag: 'en-1280',
    locale: 'en-US',
    width: 1280,
    height: 800,
    L: en,
    uinBase: 32_000,
  },
] as const;

describe.each(VARIANTS)('pages for everyone, $name', ({ tag, locale, width, height, L, uinBase }) => {
  let nextUin = uinBase;
  const labels = { uin: L.login.uin, password: L.login.password, submit: L.login.submit };

  /** A fresh member of this variant. */
  async function member(): Promise<{ uin: number; password: string }> {
    nextUin += 1;
    const user = { uin: nextUin, password: `member-password-${(nextUin * 7).toString(36)}` };
    await sso.addUser(user.uin, 'member', user.password);
    return user;
  }

  async function open(): Promise<TestPage> {
    return openPage(browser, sso, { locale, width, height });
  }

  async function shot(page: Page, name: string): Promise<void> {
    await page.waitForTimeout(250);
    await page.screenshot({ path: join(SCREENSHOTS, `pages-${name}-${tag}.png`), fullPage: true });
  }

  /** Checks the page once its transitions (a dialog fading in) have ended: axe judges colours as drawn. */
  async function expectNoViolations(page: Page): Promise<void> {
    expect(await a11yViolations(page)).toEqual([]);
  }

  /** The element that has focus: its tag, id, accessible-name parts and text. */
  function focused(
    page: Page,
  ): Promise<{ tag: string; id: string; label: string; text: string; href: string }> {
    return page.evaluate(() => {
      const el = (globalThis as unknown as PageGlobals).document.activeElement;
      return {
        tag: el?.tagName.toLowerCase() ?? '',
        id: el?.id ?? '',
        label: el?.getAttribute('aria-label') ?? '',
        text: (el?.textContent ?? '').trim(),
        href: el?.getAttribute('href') ?? '',
      };
    });
  }

  /** Presses Tab until `match` holds for the focused element (at most 25 times). */
  async function tabTo(
    page: Page,
    match: (el: Awaited<ReturnType<typeof focused>>) => boolean,
  ): Promise<void> {
    for (let i = 0; i < 25; i += 1) {
      await page.keyboard.press('Tab');
      if (match(await focused(page))) return;
    }
    throw new Error(`Tab never reached the element; ended on ${JSON.stringify(await focused(page))}`);
  }

  describe('sign-in page', () => {
    it('has its own title with the school name, the logo, a heading that matches its button, and the help line', async () => {
      const { page, context, problems, foreignRequests } = await open();
      await page.goto(authUrl({ client_id: library.client_id, redirect_uri: CALLBACK }));
      const heading = page.getByRole('heading', { level: 1, name: L.login.title, exact: true });
      await heading.waitFor();
      expect(L.login.title).toBe(L.login.submit);
      await expect.poll(() => page.title()).toBe(`${L.titles.signIn} · ${BRAND}`);
      expect(await page.getByTestId('brand').innerText()).toContain(BRAND);
      expect(await page.locator('.brand__logo').getAttribute('src')).toBe(LOGO);
      const help = page.getByTestId('sign-in-help');
      expect(await help.innerText()).toContain(fmt(L.signInHelp.forgot, { helpdesk: 'help.example.edu/' }));
      expect(await help.getByRole('link', { name: 'help.example.edu/' }).getAttribute('href')).toBe(HELPDESK);
      // The reset-code page keeps the app's request, to come back to it (docs/interface.md#people-groups-and-audit).
      expect(await help.getByRole('link', { name: L.signInHelp.haveCode }).getAttribute('href')).toMatch(
        /^#\/reset\?back=\/auth\?client_id=/,
      );
      // The help line's is the form's one way to the reset-code page.
      expect(await page.locator('a[href^="#/reset"]').count()).toBe(1);
      // No naive-ui default placeholder in any language.
      const placeholders = await page
        .locator('input')
        .evaluateAll((inputs) => inputs.map((input) => input.getAttribute('placeholder') ?? ''));
      expect(placeholders.filter((text) => /Please Input|请输入/.test(text))).toEqual([]);
      await expectNoViolations(page);
      await shot(page, 'sign-in');
      expect(problems).toEqual([]);
      expect(foreignRequests).toEqual([]);
      await context.close();
    });

    it('draws input borders and the focus ring at 3:1 or more against white', async () => {
      const { page, context } = await open();
      await page.goto('/');
      await page.getByLabel(L.login.uin, { exact: true }).waitFor();
      const border = () =>
        page
          .locator('.n-input')
          .first()
          .locator('.n-input__border')
          .evaluate((el) => (globalThis as unknown as PageGlobals).getComputedStyle(el).borderTopColor);
      expect(contrastWithWhite(await border())).toBeGreaterThanOrEqual(3);
      await page.getByLabel(L.login.uin, { exact: true }).focus();
      const ring = await page
        .locator('.n-input--focus .n-input__state-border')
        .first()
        .evaluate((el) => (globalThis as unknown as PageGlobals).getComputedStyle(el).boxShadow);
      const ringColor = ring.match(/rgba?\([^)]*\)/)?.[0] ?? '';
      expect(ringColor).not.toBe('');
      expect(contrastWithWhite(ringColor)).toBeGreaterThanOrEqual(3);
      await context.close();
    });

    it('ties each error of an empty submit to its field and moves focus to the first one', async () => {
      const { page, context } = await open();
      await page.goto('/');
      await page.getByRole('button', { name: L.login.submit, exact: true }).click();
      await expect.poll(async () => (await focused(page)).id).toBe('login-uin');
      const uin = page.getByLabel(L.login.uin, { exact: true });
      expect(await uin.getAttribute('aria-invalid')).toBe('true');
      const describedBy = (await uin.getAttribute('aria-describedby')) ?? '';
      expect(await page.locator(`#${describedBy}`).innerText()).toBe(L.login.uinRequired);
      const password = page.getByLabel(L.login.password, { exact: true });
      const passwordError = (await password.getAttribute('aria-describedby')) ?? '';
      expect(await page.locator(`#${passwordError}`).innerText()).toBe(L.login.passwordRequired);
      await expectNoViolations(page);
      await shot(page, 'sign-in-errors');

      await uin.fill('12ab');
      await password.fill('x');
      await page.getByRole('button', { name: L.login.submit, exact: true }).click();
      await expect.poll(async () => (await focused(page)).id).toBe('login-uin');
      expect(await page.locator(`#${(await uin.getAttribute('aria-describedby')) ?? ''}`).innerText()).toBe(
        L.login.uinInvalid,
      );
      await context.close();
    });

    it("ties the reset-code page's errors to their fields and moves focus to the first one", async () => {
      const { page, context } = await open();
      await page.goto('/#/reset');
      await page.getByRole('button', { name: L.people.setPassword, exact: true }).click();
      await expect.poll(async () => (await focused(page)).id).toBe('reset-uin');
      for (const [id, problem] of [
        ['reset-uin', L.login.uinRequired],
        ['reset-code', L.people.codeRequired],
      ] as const) {
        const input = page.locator(`#${id}`);
        expect(await input.getAttribute('aria-invalid')).toBe('true');
        expect(
          await page.locator(`#${(await input.getAttribute('aria-describedby')) ?? ''}`).innerText(),
        ).toBe(problem);
      }
      await page.locator('#reset-uin').fill('2026888');
      await page.getByRole('button', { name: L.people.setPassword, exact: true }).click();
      await expect.poll(async () => (await focused(page)).id).toBe('reset-code');
      expect(await page.locator('#reset-uin').getAttribute('aria-invalid')).toBe('false');
      await expectNoViolations(page);
      await context.close();
    });

    it('moves focus to the new page heading, but never away from a field someone already types in', async () => {
      const user = await member();
      const { page, context, problems } = await open();
      await page.goto('/');
      await page.getByLabel(L.login.uin, { exact: true }).waitFor();

      // Nobody types: after a page change, focus is on the new page's heading.
      await openView(page, '/#/reset');
      await expect.poll(async () => (await focused(page)).tag).toBe('h1');

      // Typing as soon as the form shows: the heading, found a moment later, leaves the fields alone.
      await openView(page, '/#/account');
      const password = page.getByLabel(L.login.password, { exact: true });
      await page.getByLabel(L.login.uin, { exact: true }).fill(String(user.uin));
      await password.fill(user.password);
      await page.waitForTimeout(1200); // longer than the heading is looked for
      expect((await focused(page)).id).toBe('login-password');
      expect(await password.inputValue()).toBe(user.password);
      await page.getByRole('button', { name: L.login.submit, exact: true }).click();
      await page.getByTestId('my-uin').waitFor();
      expect(problems).toEqual([]);
      await context.close();
    });

    it('reaches the show-password button by Tab; it is named and shows the password', async () => {
      const { page, context } = await open();
      await page.goto('/');
      const password = page.getByLabel(L.login.password, { exact: true });
      await password.fill('secret-words');
      await password.focus();
      await page.keyboard.press('Tab');
      const eye = await focused(page);
      expect(eye).toMatchObject({ tag: 'button', label: L.field.showPassword });
      expect(await password.getAttribute('type')).toBe('password');
      await page.keyboard.press('Space');
      expect(await password.getAttribute('type')).toBe('text');
      expect(
        await page.getByRole('button', { name: L.field.showPassword }).getAttribute('aria-pressed'),
      ).toBe('true');
      const color = await page
        .locator('.password-toggle')
        .evaluate((el) => (globalThis as unknown as PageGlobals).getComputedStyle(el).color);
      expect(contrastWithWhite(color)).toBeGreaterThanOrEqual(3);
      await expectNoViolations(page);
      await context.close();
    });

    it('announces a lockout once, and its countdown is not a live region', async () => {
      const { page, context } = await open();
      await page.route('**/v1/account/login', (route) =>
        route.fulfill({
          status: 429,
          headers: { 'retry-after': '30' },
          contentType: 'application/json',
          body: JSON.stringify({ code: 7, msg: 'too many attempts; try again in 30 s', data: {} }),
        }),
      );
      await page.goto('/');
      await signIn(page, { uin: 40_404, password: 'wrong-password' }, labels);
      const announcer = page.getByTestId('announcer');
      await expect.poll(() => announcer.innerText()).toBe(fmt(L.signInHelp.lockedAnnounce, { seconds: 30 }));
      const notice = page.getByTestId('login-failure');
      const first = await notice.innerText();
      const live = await notice.evaluate((el) =>
        Boolean(el.closest('[role="alert"], [aria-live], [role="status"]')),
      );
      expect(live).toBe(false);
      await page.waitForTimeout(1500);
      expect(await notice.innerText()).not.toBe(first);
      expect(await announcer.innerText()).toBe(fmt(L.signInHelp.lockedAnnounce, { seconds: 30 }));
      await expectNoViolations(page);
      await shot(page, 'sign-in-locked');
      await context.close();
    });
  });

  describe('keyboard only: sign-in and consent', () => {
    it('signs in, lands on the consent heading, reaches the decisions before "Not you", and authorizes', async () => {
      const user = await member();
      const { page, context, problems } = await open();
      await page.goto(authUrl({ client_id: library.client_id, redirect_uri: CALLBACK, state: 's1' }));
      await page.getByLabel(L.login.uin, { exact: true }).waitFor();
      await tabTo(page, (el) => el.id === 'login-uin');
      await page.keyboard.type(String(user.uin));
      await page.keyboard.press('Tab');
      expect((await focused(page)).id).toBe('login-password');
      await page.keyboard.type(user.password);
      await page.keyboard.press('Enter');

      const title = fmt(L.auth.consentTitle, { app: 'Library' });
      await expect.poll(async () => (await focused(page)).text).toBe(title);
      expect((await focused(page)).tag).toBe('h1');
      await expect.poll(() => page.title()).toBe(`${fmt(L.titles.consent, { app: 'Library' })} · ${BRAND}`);
      expect(await page.getByTestId('consent-host').innerText()).toBe(
        fmt(L.field.appAddress, { host: '127.0.0.1:59999' }),
      );
      await expectNoViolations(page);
      await shot(page, 'consent');

      await page.keyboard.press('Tab');
      expect((await focused(page)).text).toBe(L.auth.deny);
      await page.keyboard.press('Tab');
      expect((await focused(page)).text).toBe(L.auth.authorize);
      await page.keyboard.press('Tab');
      expect((await focused(page)).text).toBe(L.auth.notYou);
      await page.keyboard.press('Shift+Tab');
      await Promise.all([page.waitForURL(`${CALLBACK}**`), page.keyboard.press('Enter')]);
      const landed = new URL(page.url());
      expect(landed.searchParams.get('code')).toBeTruthy();
      expect(landed.searchParams.get('state')).toBe('s1');
      expect(problems).toEqual([]);
      await context.close();
    });

    it('says why when the sign-in expired during consent, and finishes the authorization after signing in', async () => {
      const user = await member();
      const { page, context } = await open();
      await signInByApi(page, user);
      await page.goto(authUrl({ client_id: library.client_id, redirect_uri: CALLBACK, state: 's2' }));
      const authorize = page.getByRole('button', { name: L.auth.authorize, exact: true });
      await authorize.waitFor();
      await context.clearCookies();
      await authorize.click();
      const notice = page.getByTestId('session-expired');
      await notice.waitFor();
      expect(await notice.innerText()).toBe(fmt(L.signInHelp.expired, { app: 'Library' }));
      expect(await notice.getAttribute('role')).toBe('alert');
      await expectNoViolations(page);
      await shot(page, 'consent-expired');
      await Promise.all([page.waitForURL(`${CALLBACK}**`), signIn(page, user, labels)]);
      const landed = new URL(page.url());
      expect(landed.searchParams.get('code')).toBeTruthy();
      expect(landed.searchParams.get('state')).toBe('s2');
      await context.close();
    });
  });

  describe('an invalid sign-in link', () => {
    async function expectInvalid(page: Page, cause: string, name: string): Promise<void> {
      const card = page.getByTestId('auth-error');
      await card.waitFor();
      expect(await page.getByTestId('auth-error-cause').innerText()).toBe(cause);
      await expect.poll(() => page.title()).toBe(`${L.titles.invalidLink} · ${BRAND}`);
      expect(await card.getByRole('link', { name: L.invalidLink.home }).getAttribute('href')).toBe('#/');
      const helpdesk = page.getByTestId('auth-error-helpdesk');
      expect(await helpdesk.innerText()).toBe(fmt(L.invalidLink.helpdesk, { helpdesk: 'help.example.edu/' }));
      expect(await helpdesk.getByRole('link').getAttribute('href')).toBe(HELPDESK);
      await expectNoViolations(page);
      await shot(page, `invalid-${name}`);
    }

    it('says the app is unknown', async () => {
      const { page, context } = await open();
      await page.goto(authUrl({ client_id: 'AAAAAAAAAAAAAAAA', redirect_uri: CALLBACK }));
      await expectInvalid(page, L.invalidLink.unknown_client, 'unknown');
      await context.close();
    });

    it('says the address is not registered for the named app', async () => {
      const { page, context } = await open();
      await page.goto(authUrl({ client_id: library.client_id, redirect_uri: 'https://evil.example/cb' }));
      await expectInvalid(
        page,
        fmt(L.invalidLink.unregistered_redirect_uri, { app: 'Library' }),
        'unregistered',
      );
      await context.close();
    });

    it('says the named app is disabled', async () => {
      const archive = await sso.addApp(`Archive ${tag}`, '🗄️');
      await adminCall('PATCH', `/v1/admin/apps/${archive.client_id}`, { disabled: true });
      const { page, context } = await open();
      await page.goto(authUrl({ client_id: archive.client_id, redirect_uri: CALLBACK }));
      await expectInvalid(page, fmt(L.invalidLink.disabled_client, { app: `Archive ${tag}` }), 'disabled');
      await context.close();
    });
  });

  describe('keyboard only: the app launcher', () => {
    it('shows authorized and listed apps as tiles, and Enter on a tile opens the app', async () => {
      const user = await member();
      const { page, context } = await open();
      await signInByApi(page, user);
      // Authorize Library once, so it joins the listed Canteen.
      await page.goto(authUrl({ client_id: library.client_id, redirect_uri: CALLBACK }));
      await Promise.all([
        page.waitForURL(`${CALLBACK}**`),
        page.getByRole('button', { name: L.auth.authorize, exact: true }).click(),
      ]);
      await page.goto('/');
      const launcher = page.getByTestId('launcher');
      await launcher.getByRole('heading', { name: L.launcher.title }).waitFor();
      await expect.poll(() => launcher.getByRole('link').count()).toBe(2);
      expect(
        await launcher
          .getByRole('link')
          .evaluateAll((links) => links.map((a) => a.getAttribute('aria-label'))),
      ).toEqual([fmt(L.launcher.open, { app: 'Canteen' }), fmt(L.launcher.open, { app: 'Library' })]);
      await expect.poll(() => page.title()).toBe(`${L.titles.home} · ${BRAND}`);
      await expectNoViolations(page);
      await shot(page, 'launcher');

      await context.route('https://canteen.example.edu/**', (route) =>
        route.fulfill({ status: 200, contentType: 'text/plain', body: 'canteen' }),
      );
      await tabTo(page, (el) => el.label === fmt(L.launcher.open, { app: 'Canteen' }));
      expect((await focused(page)).href).toBe(LISTED_HOME);
      const [opened] = await Promise.all([context.waitForEvent('page'), page.keyboard.press('Enter')]);
      await opened.waitForLoadState();
      expect(opened.url()).toBe(LISTED_HOME);
      await context.close();
    });
  });

  describe('account page', () => {
    it('names the Revoke confirmation, and after Revoke focus is on the list heading', async () => {
      const user = await member();
      const { page, context } = await open();
      await signInByApi(page, user);
      await page.goto(authUrl({ client_id: library.client_id, redirect_uri: CALLBACK }));
      await Promise.all([
        page.waitForURL(`${CALLBACK}**`),
        page.getByRole('button', { name: L.auth.authorize, exact: true }).click(),
      ]);
      await page.goto('/#/account');
      await expect.poll(() => page.title()).toBe(`${L.titles.account} · ${BRAND}`);
      await page.getByTestId('consents').getByRole('button').first().click();
      const dialog = page.getByRole('dialog', { name: fmt(L.account.revokeTitle, { app: 'Library' }) });
      await dialog.waitFor();
      await expectNoViolations(page);
      await shot(page, 'revoke-dialog');
      await dialog.getByRole('button', { name: L.account.revoke, exact: true }).click();
      await expect.poll(async () => (await focused(page)).id, { timeout: 5000 }).toBe('my-apps-title');
      await expectNoViolations(page);
      await context.close();
    });
  });

  describe('admin pages', () => {
    it('checks the search, says "1 user", confirms a new administrator, and offers Copy for passwords', async () => {
      const user = await member();
      const { page, context } = await open();
      await signInByApi(page, ADMIN);
      await page.goto('/#/admin');
      await expect.poll(() => page.title()).toBe(`${L.titles.admin} · ${BRAND}`);
      await page.getByRole('tab', { name: L.admin.usersTab }).click();
      const search = page.getByLabel(L.users.search);
      await search.fill(String(user.uin));
      await expect
        .poll(() => page.getByTestId('users-table').innerText())
        .toContain(fmt(L.users.total, { n: 1 }, 1));
      await expectNoViolations(page);
      await shot(page, 'admin-users');

      await page
        .getByLabel(fmt(L.users.changeGroup, { uin: user.uin }))
        .first()
        .click();
      await page.locator('.n-base-select-option', { hasText: L.groups.admin }).click();
      const confirm = page.getByRole('dialog', { name: fmt(L.field.makeAdminTitle, { uin: user.uin }) });
      await confirm.waitFor();
      // The select's menu fades out as the dialog fades in.
      await expect.poll(() => page.locator('.n-base-select-menu:visible').count()).toBe(0);
      await expectNoViolations(page);
      await shot(page, 'admin-make-admin');
      await confirm.getByRole('button', { name: L.common.cancel }).click();
      await confirm.waitFor({ state: 'hidden' });

      await page.getByTestId('add-user').click();
      const addUser = page.getByTestId('user-form');
      await addUser.getByRole('button', { name: L.field.copyPassword }).waitFor();
      await page.waitForTimeout(400); // the dialog's fade-in
      await expectNoViolations(page);
      await shot(page, 'admin-add-user');
      await page.keyboard.press('Escape');
      await addUser.waitFor({ state: 'hidden' });
      await context.close();
    }, 60_000);

    it('keeps the import dialog open on Escape while rows are sent, with a keyboard-scrollable report', async () => {
      const { page, context } = await open();
      await signInByApi(page, ADMIN);
      await page.route('**/v1/admin/users/import', async (route) => {
        // A slow answer is the scenario: the dialog must stay open while the rows are on their way.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await route.continue();
      });
      await page.goto('/#/admin');
      await page.getByRole('tab', { name: L.admin.usersTab }).click();
      await page.getByTestId('import-users').click();
      const rows = [
        `${uinBase + 900},  padded-password-1  ,member`,
        'x,short,user',
        `${ADMIN.uin},whatever-1234,user`,
      ];
      await page.getByTestId('import-file').setInputFiles({
        name: 'users.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(rows.join('\n')),
      });
      await page.getByTestId('import-start').click();
      await page.getByText(L.field.importRunning).waitFor();
      await page.keyboard.press('Escape');
      await page.waitForTimeout(300);
      expect(await page.getByTestId('import-dialog').isVisible()).toBe(true);
      await page.getByTestId('import-problems').waitFor();
      expect(await page.getByTestId('count-created').innerText()).toBe('1');
      expect(await page.getByTestId('import-problems').getAttribute('tabindex')).toBe('0');
      await expectNoViolations(page);
      await shot(page, 'admin-import-report');
      // The padded password cell was trimmed: the user signs in with the password as typed.
      const check = await request.newContext({
        baseURL: sso.baseUrl,
        extraHTTPHeaders: { origin: sso.baseUrl },
      });
      const login = await check.post('/v1/account/login', {
        data: { uin: uinBase + 900, password: 'padded-password-1' },
      });
      expect(login.status()).toBe(200);
      await check.dispose();
      await context.close();
    });

    it('ties the app form errors to their fields, offers listed and homepage, and focuses sensibly after Delete', async () => {
      const { page, context } = await open();
      await signInByApi(page, ADMIN);
      await page.goto('/#/admin');
      await page.getByTestId('add-app').click();
      const form = page.getByTestId('app-form');
      await form
        .getByRole('button', { name: en.apps.create === L.apps.create ? L.apps.create : L.apps.create })
        .click();
      await expect.poll(async () => (await focused(page)).id).toBe('app-name');
      expect(await page.locator('#app-name').getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator('#app-name-feedback').innerText()).toBe(L.apps.nameRequired);
      expect(await form.getByLabel(L.field.homepageUrl).isVisible()).toBe(true);
      expect(await form.getByRole('checkbox', { name: L.field.listed }).isVisible()).toBe(true);
      await expectNoViolations(page);
      await shot(page, 'admin-app-form');
      await page.keyboard.press('Escape');

      const doomed = await sso.addApp(`Doomed ${tag}`, '💣');
      await page.reload();
      const row = page.getByTestId('apps-table').locator('tr', { hasText: `Doomed ${tag}` });
      await row.getByRole('button', { name: new RegExp(`^${L.common.delete}`) }).click();
      const dialog = page.getByRole('dialog', { name: fmt(L.apps.deleteTitle, { app: `Doomed ${tag}` }) });
      await dialog.waitFor();
      await expectNoViolations(page);
      await dialog.getByRole('button', { name: L.common.delete, exact: true }).click();
      await expect
        .poll(
          async () =>
            await page.evaluate(() =>
              (globalThis as unknown as PageGlobals).document.activeElement?.getAttribute('data-testid'),
            ),
          {
            timeout: 5000,
          },
        )
        .toBe('add-app');
      expect(doomed.client_id).toBeTruthy();
      await context.close();
    });
  });
});
