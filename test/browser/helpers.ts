/**
 * Browser-test helpers: the real server (`dist/src/cli.js serve`) as a child process on its own port over a
 * fresh SQLite file, the CLI to seed users and apps, Debian's Chromium through playwright-core, axe checks,
 * CSP-violation capture and screenshots at phone and desktop sizes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { serveWithBaseUrl } from '../cli/cli-process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(ROOT, 'test-artifacts/screenshots');

/** A redirect URI on a port where nothing listens: tests intercept the navigation there. */
export const CALLBACK = 'http://127.0.0.1:59999/cb';

export const ADMIN = { uin: 10001, password: 'admin-password-1' } as const;
export const MEMBER = { uin: 20002, password: 'member-password-2' } as const;

export interface Sso {
  readonly baseUrl: string;
  /** Runs `campus-sso <args>` against this server's database; answers stdout. */
  cli(args: readonly string[], input?: string): Promise<string>;
  addUser(uin: number, group: 'admin' | 'member' | 'user', password: string): Promise<void>;
  addApp(
    name: string,
    emoji: string,
    redirectUris?: readonly string[],
  ): Promise<{ client_id: string; client_secret: string }>;
  stop(): Promise<void>;
}

export interface SsoOptions {
  /** Extra environment (overrides the defaults below). */
  readonly env?: Readonly<Record<string, string>>;
  /** BASE_URL's host: WebAuthn refuses an IP address as relying-party id, so passkey tests use `localhost`. */
  readonly host?: string;
}

export async function startSso(options: SsoOptions = {}): Promise<Sso> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build:server\` first`);
  if (!existsSync(join(ROOT, 'dist/web/index.html')))
    throw new Error('dist/web is missing: run `npm run build:web` first');
  const dir = mkdtempSync(join(tmpdir(), 'campus-sso-browser-'));
  // Vitest sets BASE_URL to '/' (Vite's); the server's own comes from its port, below.
  const { BASE_URL: _vite, PORT: _port, ...inherited } = process.env;
  const env = {
    ...inherited,
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${join(dir, 'sso.sqlite')}`,
    LOG_LEVEL: 'warn',
    // Suites not about second factors sign admins in with a password alone.
    MFA_REQUIRED_GROUPS: '',
    ...options.env,
  };

  // The server's own settings once it has its port (BASE_URL), for the commands run against it.
  let cliEnv: NodeJS.ProcessEnv = env;
  const cli = (args: readonly string[], input?: string): Promise<string> =>
    new Promise((resolveRun, reject) => {
      const child = spawn(process.execPath, [CLI, ...args], {
        env: cliEnv,
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0
          ? resolveRun(stdout)
          : reject(new Error(`campus-sso ${args.join(' ')} exited ${code}: ${stderr}`)),
      );
      child.stdin.end(input ?? '');
    });

  // Migrate first so the CLI and the server never race to create the schema.
  await cli(['migrate']);
  // BASE_URL names the port (the pages' Origin, the issuer, WebAuthn's origin): see serveWithBaseUrl.
  const defined = Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const { serve, baseUrl } = await serveWithBaseUrl(Object.fromEntries(defined), {
    ...(options.host !== undefined ? { host: options.host } : {}),
  });
  cliEnv = { ...env, BASE_URL: baseUrl };

  return {
    baseUrl,
    cli,
    async addUser(uin, group, password) {
      await cli(['user', 'add', '--uin', String(uin), '--group', group, '--password-stdin'], password);
    },
    async addApp(name, emoji, redirectUris = [CALLBACK]) {
      const args = ['app', 'add', '--name', name, '--emoji', emoji];
      for (const uri of redirectUris) args.push('--redirect-uri', uri);
      return JSON.parse(await cli(args)) as { client_id: string; client_secret: string };
    },
    async stop() {
      await serve.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: apt-get install -y chromium fonts-noto-cjk fonts-noto-color-emoji`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface TestPage {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Console errors and CSP violations seen so far (CSP: the server forbids inline script and eval). */
  readonly problems: string[];
  /** Requests that left the server's origin (other than the intercepted callback). */
  readonly foreignRequests: string[];
}

export async function openPage(
  browser: Browser,
  sso: Sso,
  options: { locale?: string; width?: number; height?: number } = {},
): Promise<TestPage> {
  const context = await browser.newContext({
    baseURL: sso.baseUrl,
    locale: options.locale ?? 'en-US',
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
  });
  const page = await context.newPage();
  const problems: string[] = [];
  const foreignRequests: string[] = [];
  page.on('console', (message) => {
    const text = message.text();
    // A 401 from /v1/account/me is how the page learns nobody is signed in; the browser logs it.
    if (message.type() === 'error' && !/status of 40[01]/.test(text)) problems.push(text);
    if (/Content Security Policy/i.test(text)) problems.push(text);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('request', (request) => {
    const url = request.url();
    if (
      !url.startsWith(sso.baseUrl) &&
      !url.startsWith(CALLBACK) &&
      !url.startsWith('data:') &&
      !url.startsWith('blob:')
    ) {
      foreignRequests.push(url);
    }
  });
  // The app's callback: nothing listens there; answer the navigation so its URL can be read.
  await page.route(`${CALLBACK}**`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/plain', body: 'callback' }),
  );
  return { context, page, problems, foreignRequests };
}

/**
 * Opens a page of the app by its hash route (`/#/account`) and waits until the router shows that view. From a
 * page of the app this is a same-document navigation: `page.goto` returns as soon as the address changes,
 * before the router has replaced the view, and home and #/account both show the same sign-in form, so a
 * form filled at once could be the old view's, thrown away a moment later.
 */
export async function openView(page: Page, path: `/#/${string}`): Promise<void> {
  await page.goto(path);
  const routePath = path.slice('/#'.length).split('?')[0]!;
  await page.locator(`main[data-view="${routePath}"]`).waitFor({ state: 'attached' });
}

/** Fills the sign-in form by its visible labels and submits it. */
export async function signIn(
  page: Page,
  user: { uin: number; password: string },
  labels = { uin: 'UIN', password: 'Password', submit: 'Log in' },
): Promise<void> {
  await page.getByLabel(labels.uin, { exact: true }).fill(String(user.uin));
  await page.getByLabel(labels.password, { exact: true }).fill(user.password);
  await page.getByRole('button', { name: labels.submit, exact: true }).click();
}

/** Signs in through the JSON API with the page's cookie jar (faster than the form when the form is not the point). */
export async function signInByApi(page: Page, user: { uin: number; password: string }): Promise<void> {
  const response = await page.request.post('/v1/account/login', {
    data: { uin: user.uin, password: user.password },
    headers: { 'content-type': 'application/json' },
  });
  if (!response.ok()) throw new Error(`login ${user.uin}: ${response.status()} ${await response.text()}`);
}

export function authUrl(params: Record<string, string>): `/#/auth?${string}` {
  return `/#/auth?${new URLSearchParams(params).toString()}`;
}

/** Waits (up to 3 s) for running transitions to end, so axe judges colours as drawn, not mid-fade. */
export async function settled(page: Page): Promise<void> {
  // A toast or dialog that the last action opens may start its transition a frame or two later.
  await page.waitForTimeout(350);
  // A toast fades out after a few seconds: on a loaded machine axe could catch it half transparent, so the
  // check waits until the toasts are gone (their text colours are set in web/src/theme.ts).
  await page
    .locator('.n-message')
    .first()
    .waitFor({ state: 'detached', timeout: 8000 })
    .catch(() => undefined);
  // Then for running transitions to end. Polled with functions, never strings: the pages' CSP forbids eval.
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline) {
    const running = await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { getAnimations(): RunningAnimation[] } }).document;
      return doc
        .getAnimations()
        .filter((a) => a.playState === 'running' && a.effect?.getTiming().iterations !== Infinity).length;
    });
    if (running === 0) return;
    await page.waitForTimeout(50);
  }
}

/** The little of the Web Animations API that `settled` reads (the tests compile without the DOM lib). */
interface RunningAnimation {
  readonly playState: string;
  readonly effect: { getTiming(): { iterations?: number } } | null;
}

/** Serious and critical axe violations of the page as it is now (shadow DOM of the emoji picker included). */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  await settled(page);
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} — ${violation.nodes
          .slice(0, 3)
          .map((node) => node.target.join(' '))
          .join(' | ')}`,
    );
}

/**
 * Every axe violation, of any impact, of WCAG 2.0–2.2 A/AA and axe's best practices (dialog names, regions,
 * scrollable regions): the pages are checked against all of them.
 */
export async function a11yViolations(page: Page): Promise<string[]> {
  await settled(page);
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze();
  return result.violations.map(
    (violation) =>
      `${violation.impact} ${violation.id}: ${violation.help} — ${violation.nodes
        .slice(0, 3)
        .map((node) => `${node.target.join(' ')} ${node.failureSummary ?? ''}`)
        .join(' | ')}`,
  );
}

/** Saves the page at phone (375×812) and desktop (1280×800) size, then restores desktop size. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.setViewportSize({ width: 375, height: 812 });
  await page.waitForTimeout(150);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-375.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.waitForTimeout(150);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-1280.png`), fullPage: true });
}

/** What every browser suite starts with: the server with an admin and a member, Chromium, and an app. */
export interface World {
  readonly sso: Sso;
  readonly browser: Browser;
  readonly app: { client_id: string; client_secret: string };
}

export async function startWorld(options: SsoOptions = {}): Promise<World> {
  const [sso, browser] = await Promise.all([startSso(options), launchBrowser()]);
  await sso.addUser(ADMIN.uin, 'admin', ADMIN.password);
  await sso.addUser(MEMBER.uin, 'member', MEMBER.password);
  const app = await sso.addApp('Library', '📚');
  return { sso, browser, app };
}

export async function stopWorld(world: Partial<World>): Promise<void> {
  await world.browser?.close();
  await world.sso?.stop();
}

/** Picks an action from a Users row's **Actions** menu on `#/admin` (the row's actions live in that menu). */
export async function userRowAction(page: Page, uin: number, action: string): Promise<void> {
  const button = page.getByRole('button', { name: `Actions ${uin}`, exact: true });
  const item = page.getByRole('menu').getByRole('menuitem', { name: action, exact: true });
  // The list reloads after a change; a reload landing just after the click redraws the row and closes its
  // menu. Open it again then (never toggle an open menu shut), as a person would.
  for (let attempt = 1; ; attempt++) {
    if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
    try {
      await item.waitFor({ timeout: 5_000 });
      break;
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
  await item.click();
}
