/**
 * Classroom screens (docs/interface.md#device-authorization-grant), in a real browser against the real
 * server: a "classroom screen" client asks for a code (RFC 8628), a student on a 375 px phone page signs in
 * at the verification_uri_complete, checks the request and allows it, and the screen's next poll gets tokens;
 * another student types a code by hand (lower case, spaces) and denies it.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MEMBER,
  openPage,
  screenshots,
  seriousA11yViolations,
  signIn,
  type Sso,
  startWorld,
  stopWorld,
} from './helpers.js';

let sso: Sso;
let browser: Browser;
let screen: { client_id: string; client_secret: string };

beforeAll(async () => {
  ({ sso, browser } = await startWorld());
  screen = JSON.parse(
    await sso.cli(['app', 'add', '--name', 'Classroom screen', '--emoji', '📺', '--device']),
  ) as { client_id: string; client_secret: string };
}, 60_000);

afterAll(() => stopWorld({ sso, browser }));

const basic = (): string =>
  `Basic ${Buffer.from(`${screen.client_id}:${screen.client_secret}`).toString('base64')}`;

/** The classroom screen's own requests (RFC 8628 §3.1 and §3.4). */
async function screenAsks(): Promise<{
  device_code: string;
  user_code: string;
  verification_uri_complete: string;
}> {
  const response = await fetch(`${sso.baseUrl}/v1/oauth2/device_authorization`, {
    method: 'POST',
    headers: { authorization: basic(), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'scope=openid+profile',
  });
  expect(response.status).toBe(200);
  return (await response.json()) as {
    device_code: string;
    user_code: string;
    verification_uri_complete: string;
  };
}

function screenPolls(deviceCode: string): Promise<Response> {
  return fetch(`${sso.baseUrl}/v1/oauth2/token`, {
    method: 'POST',
    headers: { authorization: basic(), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: deviceCode,
    }).toString(),
  });
}

describe('a classroom screen and a student on a phone', () => {
  it('signs the screen in after the student opens the link, signs in and allows it', async () => {
    const device = await screenAsks();
    expect((await (await screenPolls(device.device_code)).json()) as { error: string }).toMatchObject({
      error: 'authorization_pending',
    });
    const { page, context, problems } = await openPage(browser, sso, { width: 375, height: 812 });
    const path = device.verification_uri_complete.slice(sso.baseUrl.length);
    await page.goto(path);
    // Signed out: the sign-in form first, then back to the device page.
    await signIn(page, MEMBER);
    const codeField = page.getByLabel('Code on the screen', { exact: true });
    await expect.poll(() => codeField.inputValue()).toBe(device.user_code);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Continue', exact: true }).click();

    const review = page.getByTestId('device-review');
    await review.waitFor();
    await expect.poll(() => review.textContent()).toContain('Classroom screen wants to sign in as you');
    expect(await page.getByTestId('device-warning').textContent()).toContain(
      'Only continue if this code is on the screen in front of you',
    );
    expect(await page.getByTestId('device-where').textContent()).toContain('127.0.0.1');
    expect(await review.textContent()).toContain('Your name');
    expect(await seriousA11yViolations(page)).toEqual([]);
    // Phone-first: nothing wider than the phone.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await screenshots(page, 'device-review');

    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByTestId('device-allowed').waitFor();
    expect(await page.getByTestId('device-allowed').textContent()).toContain(
      'Done: Classroom screen is signed in',
    );
    expect(await seriousA11yViolations(page)).toEqual([]);

    // The screen's next poll (after the interval) gets its tokens. Waiting out the interval is the rule
    // (RFC 8628 §3.5): a poll sooner is answered slow_down, so this wait is the protocol's, not a guess.
    await new Promise((r) => setTimeout(r, 5000));
    const tokens = await screenPolls(device.device_code);
    expect(tokens.status).toBe(200);
    expect(await tokens.json()).toHaveProperty('id_token');
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('takes a typed code in lower case with spaces, and Deny tells the screen access_denied', async () => {
    const device = await screenAsks();
    const { page, context, problems } = await openPage(browser, sso, {
      width: 375,
      height: 812,
      locale: 'zh-CN',
    });
    await page.goto('/#/device');
    await signIn(page, MEMBER, { uin: '账号', password: '密码', submit: '登录' });
    const typed = device.user_code.replace('-', ' ').toLowerCase();
    await page.getByLabel('屏幕上的代码', { exact: true }).fill(typed);
    await page.getByRole('button', { name: '继续', exact: true }).click();
    await page.getByTestId('device-review').waitFor();
    expect(await page.getByTestId('device-warning').textContent()).toContain(
      '只有当这个代码就显示在你面前的屏幕上时才继续',
    );
    await page.getByRole('button', { name: '拒绝', exact: true }).click();
    await page.getByTestId('device-denied').waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect((await (await screenPolls(device.device_code)).json()) as { error: string }).toMatchObject({
      error: 'access_denied',
    });
    // A wrong code is explained, not a blank failure.
    await page.getByRole('button', { name: '连接另一台设备', exact: true }).click();
    await page.getByLabel('屏幕上的代码', { exact: true }).fill('BBBB-BBBB');
    await page.getByRole('button', { name: '继续', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('此代码无效');
    expect(problems.filter((p) => !/status of 404/.test(p))).toEqual([]);
    await context.close();
  }, 60_000);
});
