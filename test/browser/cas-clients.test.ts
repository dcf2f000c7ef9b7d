/**
 * Real CAS clients from Debian sign people in through campus-sso (docs/interface.md#cas-protocol): Apache
 * httpd with mod_auth_cas protecting a page, and a phpCAS script served by `php -S`, each started on a free
 * port with its own configuration in a temporary folder (never the system's apache2 service), each signing
 * a user in through Chromium and reading the uin (and, for phpCAS, the CAS 3.0 attributes). Also the CAS
 * pages' own rules in a real browser: "Sign in to <app>", renew, the shared-computer confirmation, axe.
 * scripts/prepare-test-machine.sh installs apache2, libapache2-mod-auth-cas, php-cli, php-cas and php-xml.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PortTaken, startOnProbedPort } from '../helpers/probed-port.js';
import { waitFor } from '../helpers/wait.js';
import {
  ADMIN,
  MEMBER,
  type World,
  a11yViolations,
  openPage,
  signIn,
  signInByApi,
  startWorld,
  stopWorld,
} from './helpers.js';

const APACHE = '/usr/sbin/apache2';
const MODULES = '/usr/lib/apache2/modules';
const PHPCAS = '/usr/share/php/CAS.php';

let world: World;
let dir: string;
const children: ChildProcess[] = [];

/** Starts a child process and remembers it, so that it is stopped after the suite. */
function startChild(
  command: string,
  args: readonly string[],
  cwd: string,
): { child: ChildProcess; log: () => string } {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  children.push(child);
  return { child, log: () => log };
}

/**
 * Starts a daemon that must be given its port up front: `start(port)` on a probed port, until `serving`
 * (something only this daemon shows once it has bound the port: its own log line or pid file, never an
 * answer on the port, which another process could give). The probe's port may be taken by another process
 * before the daemon binds it; then the daemon exits saying so and the start is tried again on a new port
 * (../helpers/probed-port.ts).
 */
async function startOnFreePort(
  start: (port: number) => { child: ChildProcess; log: () => string },
  serving: (started: { child: ChildProcess; log: () => string }) => boolean,
): Promise<number> {
  return startOnProbedPort('a CAS client', async (port) => {
    const started = start(port);
    const up = await waitFor(() => (started.child.exitCode !== null ? 'exited' : serving(started) && 'up'), {
      timeout: 20_000,
      what: `the daemon to listen on ${port}`,
    }).catch((error: unknown) => {
      throw new Error(`did not start:\n${started.log()}`, { cause: error });
    });
    if (up === 'up') return port;
    if (/Address already in use/i.test(started.log())) return new PortTaken(started.log());
    throw new Error(`exited ${started.child.exitCode}:\n${started.log()}`);
  });
}

beforeAll(async () => {
  for (const needed of [APACHE, `${MODULES}/mod_auth_cas.so`, PHPCAS, '/usr/bin/php']) {
    if (!existsSync(needed)) throw new Error(`${needed} is missing: run scripts/prepare-test-machine.sh`);
  }
  world = await startWorld();
  dir = mkdtempSync(join(tmpdir(), 'campus-sso-cas-clients-'));
  // httpd started as root serves as www-data: it must reach its folder and write its ticket cache.
  chmodSync(dir, 0o755);
}, 120_000);

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }
  await stopWorld(world ?? {});
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Registers a CAS-only app with these service URLs through the command line. */
async function registerCasApp(name: string, emoji: string, services: readonly string[]): Promise<void> {
  const args = ['app', 'add', '--name', name, '--emoji', emoji];
  for (const service of services) args.push('--cas-service', service);
  await world.sso.cli(args);
}

describe('Apache httpd with mod_auth_cas', () => {
  let protectedUrl: string;

  beforeAll(async () => {
    const root = join(dir, 'apache');
    const htdocs = join(root, 'htdocs', 'protected');
    const cache = join(root, 'cas-cache');
    mkdirSync(htdocs, { recursive: true });
    mkdirSync(cache, { recursive: true });
    chmodSync(root, 0o755);
    chmodSync(join(root, 'htdocs'), 0o755);
    chmodSync(htdocs, 0o755);
    chmodSync(cache, 0o777);
    // Server-side includes print what mod_auth_cas put in REMOTE_USER: the uin.
    writeFileSync(join(htdocs, 'index.shtml'), '<p id="user">uin=<!--#echo var="REMOTE_USER" --></p>\n');
    const running = process.getuid?.() === 0 ? 'User www-data\nGroup www-data\n' : '';
    const pidFile = join(root, 'httpd.pid');
    const httpd = (port: number): { child: ChildProcess; log: () => string } => {
      rmSync(pidFile, { force: true });
      writeFileSync(
        join(root, 'httpd.conf'),
        `ServerRoot "${root}"
ServerName 127.0.0.1
Listen 127.0.0.1:${port}
PidFile "${root}/httpd.pid"
DefaultRuntimeDir "${root}"
ErrorLog "${root}/error.log"
LogLevel warn auth_cas:debug
${running}LoadModule mpm_event_module ${MODULES}/mod_mpm_event.so
LoadModule authn_core_module ${MODULES}/mod_authn_core.so
LoadModule authz_core_module ${MODULES}/mod_authz_core.so
LoadModule authz_user_module ${MODULES}/mod_authz_user.so
LoadModule include_module ${MODULES}/mod_include.so
LoadModule auth_cas_module ${MODULES}/mod_auth_cas.so
DocumentRoot "${root}/htdocs"
<Directory "${root}/htdocs">
  Options +Includes
  Require all granted
</Directory>
CASCookiePath "${cache}/"
CASLoginURL ${world.sso.baseUrl}/cas/login
CASValidateURL ${world.sso.baseUrl}/cas/serviceValidate
CASSSOEnabled On
<Location /protected>
  AuthType CAS
  Require valid-user
  SetOutputFilter INCLUDES
</Location>
`,
      );
      return startChild(APACHE, ['-d', root, '-f', join(root, 'httpd.conf'), '-DFOREGROUND'], root);
    };
    // httpd writes its pid file once it has bound its Listen address.
    const port = await startOnFreePort(httpd, () => existsSync(pidFile));
    protectedUrl = `http://127.0.0.1:${port}/protected/index.shtml`;
    await registerCasApp('Library proxy', '📚', [`http://127.0.0.1:${port}/protected/`]);
  }, 60_000);

  it('signs a user in through the campus-sso page and serves the protected page with the uin; single logout ends it', async () => {
    const { page, context } = await openPage(world.browser, world.sso);
    try {
      await page.goto(protectedUrl);
      await page.waitForURL(`${world.sso.baseUrl}/#/cas?**`);
      await page.getByText('Sign in to 📚 Library proxy', { exact: true }).waitFor();
      await signIn(page, MEMBER);
      await page.waitForURL(protectedUrl);
      expect(await page.locator('#user').textContent()).toBe(`uin=${MEMBER.uin}`);
      // Single sign-on: once the app forgets its own cookie, campus-sso gives it a new ticket, no password.
      const appCookie = (cookie: { name: string }): boolean => cookie.name.startsWith('MOD_AUTH_CAS');
      const kept = (await context.cookies()).filter((cookie) => !appCookie(cookie));
      await context.clearCookies();
      await context.addCookies(kept);
      const casLogins: string[] = [];
      page.on('request', (request) => {
        if (request.url().startsWith(`${world.sso.baseUrl}/cas/login`)) casLogins.push(request.url());
      });
      await page.goto(protectedUrl);
      await page.waitForURL(protectedUrl);
      expect(await page.locator('#user').textContent()).toBe(`uin=${MEMBER.uin}`);
      expect(casLogins).toHaveLength(1);
      // Single logout: signing out of campus-sso makes campus-sso post a logoutRequest that mod_auth_cas
      // (CASSSOEnabled) honours by forgetting the session its cookie names.
      const appCookies = async (): Promise<string> =>
        (await context.cookies(protectedUrl))
          .filter(appCookie)
          .map((c) => `${c.name}=${c.value}`)
          .join('; ');
      const before = await fetch(protectedUrl, {
        headers: { cookie: await appCookies() },
        redirect: 'manual',
      });
      expect(before.status).toBe(200);
      await before.body?.cancel();
      await page.goto(`${world.sso.baseUrl}/cas/logout`);
      await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
      const signedOut = await waitFor(
        async () => {
          const cookie = (await context.cookies(protectedUrl))
            .filter(appCookie)
            .map((c) => `${c.name}=${c.value}`);
          const answer = await fetch(protectedUrl, {
            headers: { cookie: cookie.join('; ') },
            redirect: 'manual',
          });
          await answer.body?.cancel();
          return answer.status === 302 ? answer : undefined;
        },
        { timeout: 15_000, interval: 100, what: 'mod_auth_cas to forget the session' },
      );
      expect(signedOut.headers.get('location')).toContain(`${world.sso.baseUrl}/cas/login?service=`);
    } finally {
      await context.close();
    }
  });
});

describe('phpCAS', () => {
  let scriptUrl: string;

  beforeAll(async () => {
    const root = join(dir, 'php');
    mkdirSync(root, { recursive: true });
    const sso = new URL(world.sso.baseUrl);
    // phpCAS builds https URLs from the host and port; campus-sso here speaks plain http on loopback, so
    // the login and validation URLs are set in full. CAS 3.0: the attributes come with the user.
    const script = (port: number): void =>
      writeFileSync(
        join(root, 'index.php'),
        `<?php
require_once '${PHPCAS}';
phpCAS::client(CAS_VERSION_3_0, '${sso.hostname}', ${sso.port}, '/cas', 'http://127.0.0.1:${port}');
phpCAS::setServerLoginURL('${world.sso.baseUrl}/cas/login?service=' . urlencode('http://127.0.0.1:${port}/index.php'));
phpCAS::setServerServiceValidateURL('${world.sso.baseUrl}/cas/p3/serviceValidate');
phpCAS::setServerLogoutURL('${world.sso.baseUrl}/cas/logout');
phpCAS::setNoCasServerValidation();
phpCAS::handleLogoutRequests(false);
phpCAS::forceAuthentication();
header('Content-Type: text/html; charset=utf-8');
echo '<pre id="result">' . htmlspecialchars(json_encode(['user' => phpCAS::getUser(), 'attributes' => phpCAS::getAttributes()])) . '</pre>';
`,
      );
    // `php -S` says "Development Server (http://…) started" once it listens.
    const port = await startOnFreePort(
      (port) => {
        script(port);
        return startChild('/usr/bin/php', ['-S', `127.0.0.1:${port}`, '-t', root], root);
      },
      (php) => / started/.test(php.log()),
    );
    scriptUrl = `http://127.0.0.1:${port}/index.php`;
    await registerCasApp('Timetable', '🗓️', [`http://127.0.0.1:${port}/`]);
  }, 60_000);

  it('signs a user in through Chromium and reads the uin and the attributes', async () => {
    const { page, context } = await openPage(world.browser, world.sso);
    try {
      await page.goto(scriptUrl);
      await page.waitForURL(`${world.sso.baseUrl}/#/cas?**`);
      await signIn(page, ADMIN);
      await page.waitForURL(`${scriptUrl}**`);
      const result = JSON.parse((await page.locator('#result').textContent()) ?? '{}') as {
        user: string;
        attributes: Record<string, unknown>;
      };
      expect(result.user).toBe(String(ADMIN.uin));
      expect(result.attributes).toMatchObject({
        uin: String(ADMIN.uin),
        user_group: 'admin',
        isFromNewLogin: 'true',
        longTermAuthenticationRequestTokenUsed: 'false',
        successfulAuthenticationHandlers: 'PasswordAuthenticationHandler',
      });
      expect(new Date(String(result.attributes.authenticationDate)).toISOString()).toBe(
        result.attributes.authenticationDate,
      );
    } finally {
      await context.close();
    }
  });
});

describe('the CAS pages in a browser', () => {
  const service = 'http://127.0.0.1:59999/cas-app/';
  beforeAll(async () => {
    await registerCasApp('Moodle', '🎓', [service]);
  });

  it('shows "Log in to continue to <app>" with a renew notice, and is axe-clean in both languages', async () => {
    for (const [locale, notice] of [
      ['en-US', 'Moodle asks you to enter your password again.'],
      ['zh-CN', 'Moodle要求您重新输入密码。'],
    ] as const) {
      const { page, context } = await openPage(world.browser, world.sso, { locale });
      try {
        await page.goto(`/cas/login?service=${encodeURIComponent(service)}&renew=true`);
        await page.getByTestId('cas-renew').waitFor();
        expect((await page.getByTestId('cas-renew').textContent())?.trim()).toBe(notice);
        expect(await a11yViolations(page)).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });

  it('asks a shared-computer session to confirm the app, then goes to the service with a ticket', async () => {
    const { page, context } = await openPage(world.browser, world.sso);
    try {
      await page.goto('/#/');
      const login = await page.request.post('/v1/account/login', {
        data: { uin: MEMBER.uin, password: MEMBER.password, shared: true },
        headers: { 'content-type': 'application/json' },
      });
      expect(login.ok()).toBe(true);
      await page.goto(`/cas/login?service=${encodeURIComponent(service)}`);
      await page.getByTestId('cas-confirm').waitFor();
      expect(await a11yViolations(page)).toEqual([]);
      await page.route(`${service}**`, (route) => route.fulfill({ status: 200, body: 'app' }));
      await page.getByRole('button', { name: 'Continue to Moodle' }).click();
      await page.waitForURL(/ticket=ST-/);
    } finally {
      await context.close();
    }
  });

  it('registers a CAS-only app on #/admin, with help text and the URL rules of the server, and lists its service', async () => {
    const { page, context } = await openPage(world.browser, world.sso);
    try {
      await signInByApi(page, ADMIN);
      await page.goto('/#/admin');
      await page.getByTestId('add-app').click();
      const form = page.getByTestId('app-form');
      await form.waitFor();
      await form.getByLabel('Name', { exact: true }).fill('Moodle 2');
      await form.getByLabel('Emoji', { exact: true }).fill('🎓');
      const services = form.getByLabel('CAS service URLs', { exact: true });
      await form.getByText('the address the app sends as its “service”').waitFor();
      await services.fill('http://moodle2.example.edu/');
      await form.getByRole('button', { name: 'Create', exact: true }).click();
      await form.getByText('Line 1: Use https').waitFor();
      await services.fill('https://moodle2.example.edu/login/index.php');
      expect(await a11yViolations(page)).toEqual([]);
      await form.getByRole('button', { name: 'Create', exact: true }).click();
      const dialog = page.getByTestId('credentials-dialog');
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'I have saved the secret' }).click();
      await page.getByText('CAS: https://moodle2.example.edu/login/index.php').waitFor();
      // Its single logouts are shown with the app, as back-channel logouts are.
      const row = page.getByTestId('apps-table').getByRole('row').filter({ hasText: 'Moodle 2' });
      expect(await row.getByTestId('logout-delivery').textContent()).toContain('No delivery yet');
    } finally {
      await context.close();
    }
  });

  it('serves axe-clean notice pages: unregistered service, signed out', async () => {
    const { page, context } = await openPage(world.browser, world.sso);
    try {
      await page.goto(`/cas/login?service=${encodeURIComponent('https://evil.example/')}`);
      await page.getByRole('heading', { name: 'This app is not registered' }).waitFor();
      expect(await a11yViolations(page)).toEqual([]);
      await page.goto('/cas/logout');
      await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
      expect(await a11yViolations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
