/**
 * Second factors in a real browser (docs/interface.md#second-factor): a passkey enrolled on #/account with a
 * virtual authenticator (Chrome DevTools Protocol, WebAuthn domain), Sign in with a passkey, an app
 * authorized and its id_token's amr; an admin led to enrol an authenticator app before #/admin works, then
 * signing in with a recovery code. BASE_URL is http://localhost:…: WebAuthn refuses an IP address as
 * relying-party id.
 */
import { decodeJwt } from 'jose';
import { generateSync } from 'otplib';
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
  ({ sso, browser, app } = await startWorld({ host: 'localhost', env: { MFA_REQUIRED_GROUPS: 'admin' } }));
}, 60_000);

afterAll(() => stopWorld({ sso, browser }));

/** A platform authenticator with a user-verifying, discoverable credential store, as a phone has. */
async function addVirtualAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
}

describe('passkeys (#/account, Sign in with a passkey)', () => {
  it('enrols a passkey, signs out, signs in with it, authorizes an app; the id_token says hwk and mfa', async () => {
    const { page, context, problems } = await openPage(browser, sso);
    await addVirtualAuthenticator(page);
    await signInByApi(page, MEMBER);
    await page.goto('/#/account');
    const card = page.getByTestId('second-factors');
    await card.getByText('A passkey lets you sign in with your phone').waitFor();
    await card.getByLabel('Name of the new passkey', { exact: true }).fill('Test laptop');
    await card.getByRole('button', { name: 'Add a passkey' }).click();

    // The first factor comes with 10 recovery codes, shown once.
    const codes = page.getByTestId('recovery-codes');
    await codes.waitFor();
    expect(await codes.locator('li').count()).toBe(10);
    await page.getByTestId('passkeys').getByRole('button', { name: 'Remove Test laptop' }).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'account-second-factor');
    await codes.getByLabel('I have saved these codes').check();
    await codes.getByRole('button', { name: 'Done' }).click();
    await codes.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL((url) => !url.hash.includes('account'));

    await page.goto(
      authUrl({
        client_id: app.client_id,
        redirect_uri: CALLBACK,
        response_type: 'code',
        scope: 'openid',
        nonce: 'passkey-nonce',
      }),
    );
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const authorize = page.getByRole('button', { name: 'Authorize', exact: true });
    await authorize.waitFor();
    await Promise.all([page.waitForURL(`${CALLBACK}**`), authorize.click()]);
    const code = new URL(page.url()).searchParams.get('code');
    expect(code).toBeTruthy();

    const token = await fetch(`${sso.baseUrl}/v1/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: CALLBACK }),
    });
    expect(token.status).toBe(200);
    const { id_token } = (await token.json()) as { id_token: string };
    expect(decodeJwt(id_token)).toMatchObject({
      uin: MEMBER.uin,
      amr: ['hwk', 'mfa'],
      nonce: 'passkey-nonce',
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('signs in with a passkey on "This is a shared computer": the session is a shared-computer one', async () => {
    const user = { uin: 60006, password: 'member-password-6' };
    await sso.addUser(user.uin, 'member', user.password);
    const { page, context, problems } = await openPage(browser, sso, { locale: 'en-US' });
    await addVirtualAuthenticator(page);
    await signInByApi(page, user);
    await page.goto('/#/account');
    const card = page.getByTestId('second-factors');
    await card.getByRole('button', { name: 'Add a passkey' }).click();
    const codes = page.getByTestId('recovery-codes');
    await codes.waitFor();
    await codes.getByLabel('I have saved these codes').check();
    await codes.getByRole('button', { name: 'Done' }).click();

    await page.request.post('/v1/account/logout', {
      data: {},
      headers: { 'content-type': 'application/json' },
    });
    await page.goto('/#/account');
    await page.reload();
    await page.getByTestId('shared-computer').check();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByTestId('my-uin').waitFor();
    const sessions = (await (await page.request.get('/v1/account/sessions')).json()) as {
      data: { sessions: { current: boolean; shared: boolean }[] };
    };
    expect(sessions.data.sessions.find((session) => session.current)?.shared).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('asks for the password again when the server wants it before adding a passkey, then adds it', async () => {
    const user = { uin: 60007, password: 'member-password-7' };
    await sso.addUser(user.uin, 'member', user.password);
    const { page, context } = await openPage(browser, sso, { locale: 'en-US' });
    await addVirtualAuthenticator(page);
    await signInByApi(page, user);
    // The server asks for the password once the sign-in is over 5 minutes old; this one is fresh, so the
    // first answer is the one such a session gets (docs/interface.md#second-factor).
    const bodies: unknown[] = [];
    await page.route('**/v1/account/passkeys/options', async (route) => {
      bodies.push(route.request().postDataJSON());
      if (bodies.length > 1) return route.continue();
      return route.fulfill({
        status: 403,
        contentType: 'application/json',
        body: JSON.stringify({ code: 4, msg: 'type your password again', data: {} }),
      });
    });
    await page.goto('/#/account');
    const card = page.getByTestId('second-factors');
    await card.getByLabel('Name of the new passkey', { exact: true }).fill('Work laptop');
    await card.getByRole('button', { name: 'Add a passkey' }).click();
    await card.getByText('Enter your password again').waitFor();
    await card.getByLabel('Your password', { exact: true }).fill(user.password);
    await card.getByRole('button', { name: 'Continue', exact: true }).click();
    await page.getByTestId('passkeys').getByRole('button', { name: 'Remove Work laptop' }).waitFor();
    expect(bodies).toEqual([{}, { password: user.password }]);
    await context.close();
  });

  it('asks for the passkey as the second factor after the password', async () => {
    await sso.addUser(40004, 'member', 'member-password-4');
    const { page, context, problems } = await openPage(browser, sso);
    await addVirtualAuthenticator(page);
    await signInByApi(page, { uin: 40004, password: 'member-password-4' });
    await page.goto('/#/account');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL((url) => !url.hash.includes('account'));

    // Signed out, the page is home's sign-in form; #/account shows its own (openView waits for it).
    await openView(page, '/#/account');
    await signIn(page, { uin: 40004, password: 'member-password-4' });
    const step = page.getByTestId('second-factor');
    await step.getByText('Use the passkey on your phone, computer or security key.').waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await step.getByRole('button', { name: 'Use my passkey' }).click();
    await page.getByTestId('my-uin').waitFor();
    expect(await page.getByTestId('my-uin').textContent()).toBe('40004');
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('an admin without a second factor (MFA_REQUIRED_GROUPS=admin)', () => {
  it('is led from #/admin to enrol an authenticator app, then signs in with a recovery code', async () => {
    const { page, context, problems } = await openPage(browser, sso, { locale: 'en-US' });
    await signInByApi(page, ADMIN);
    await page.goto('/#/admin');
    const notice = page.getByTestId('second-factor-required');
    await notice.waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await notice.getByRole('link', { name: 'Go to My account' }).click();

    const card = page.getByTestId('second-factors');
    await card.getByTestId('second-factor-needed').waitFor();
    await card.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await card.getByRole('img', { name: /QR code/ }).waitFor();
    const secret = (await card.getByTestId('totp-secret').textContent())!.trim();
    await card
      .getByLabel('Code shown by the app', { exact: true })
      .fill(generateSync({ secret, epoch: Math.floor(Date.now() / 1000) }));
    await card.getByRole('button', { name: 'Confirm', exact: true }).click();
    const codes = page.getByTestId('recovery-codes');
    await codes.waitFor();
    const recoveryCode = (await codes.locator('li').first().textContent())!.trim();
    expect(recoveryCode).toMatch(/^[A-Z2-7]{5}-[A-Z2-7]{5}$/);
    const download = codes.getByRole('link', { name: 'Download as a text file' });
    expect(await download.getAttribute('download')).toBe('campus-sso-recovery-codes.txt');
    await codes.getByLabel('I have saved these codes').check();
    await codes.getByRole('button', { name: 'Done' }).click();

    await page.goto('/#/admin');
    await page.getByRole('tab', { name: 'Users' }).waitFor();

    // Signing in again: the password, then "use a recovery code" as the way out.
    await page.request.post('/v1/account/logout', {
      data: {},
      headers: { 'content-type': 'application/json' },
    });
    await page.goto('/#/account');
    await page.reload();
    await signIn(page, ADMIN);
    const step = page.getByTestId('second-factor');
    await step.getByLabel('Code from your authenticator app', { exact: true }).waitFor();
    await step.getByRole('button', { name: 'Use a recovery code' }).click();
    await step.getByLabel('Recovery code', { exact: true }).fill(recoveryCode);
    await step.getByRole('button', { name: 'Verify' }).click();
    await page.getByTestId('my-uin').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows the second step in Chinese at phone width, keyboard-operable and axe-clean', async () => {
    await sso.addUser(50005, 'member', 'member-password-5');
    const { page, context } = await openPage(browser, sso, { locale: 'zh-CN', width: 375, height: 812 });
    await signInByApi(page, { uin: 50005, password: 'member-password-5' });
    const setup = await page.request.post('/v1/account/totp/setup', {
      data: {},
      headers: { 'content-type': 'application/json' },
    });
    const { secret } = ((await setup.json()) as { data: { secret: string } }).data;
    const confirm = await page.request.post('/v1/account/totp/confirm', {
      data: { code: generateSync({ secret, epoch: Math.floor(Date.now() / 1000) }) },
      headers: { 'content-type': 'application/json' },
    });
    expect(confirm.status()).toBe(200);
    await page.request.post('/v1/account/logout', {
      data: {},
      headers: { 'content-type': 'application/json' },
    });

    await page.goto('/#/account');
    await signIn(
      page,
      { uin: 50005, password: 'member-password-5' },
      { uin: '账号', password: '密码', submit: '登录' },
    );
    const field = page.getByLabel('身份验证器应用中的验证码', { exact: true });
    await field.waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshots(page, 'second-factor-step-zh');
    // Keyboard: type a wrong code and press Enter; the error is announced.
    await field.focus();
    await page.keyboard.type('000000');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').getByText('验证未通过').waitFor();
    await context.close();
  });
});
