/**
 * "Sign in with your phone" (docs/interface.md#sign-in-with-your-phone), in a real browser against the real
 * server: a lab computer context shows the QR code and number, a phone context (375 px, signed in) scans it,
 * picks the number, and the computer is signed in in a shared-computer session; a wrong pick gives the
 * computer a fresh QR code.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MEMBER,
  openPage,
  openView,
  screenshots,
  seriousA11yViolations,
  signInByApi,
  type Sso,
  startWorld,
  stopWorld,
} from './helpers.js';

let sso: Sso;
let browser: Browser;

beforeAll(async () => {
  ({ sso, browser } = await startWorld());
}, 60_000);

afterAll(() => stopWorld({ sso, browser }));

/** The lab computer opens "Sign in with your phone"; answers what its QR code holds and the number shown. */
async function computerShowsCode(page: Page): Promise<{ scanPath: string; number: string }> {
  const started = page.waitForResponse(
    (response) =>
      response.url().endsWith('/v1/account/phone-sign-in') && response.request().method() === 'POST',
  );
  await page.getByTestId('phone-sign-in-start').click();
  const body = (await (await started).json()) as { data: { scan_url: string } };
  await page.getByTestId('phone-qr').waitFor();
  await expect.poll(() => page.getByTestId('phone-number').textContent()).toMatch(/^\d{2}$/);
  const number = (await page.getByTestId('phone-number').textContent())!;
  return { scanPath: body.data.scan_url.slice(sso.baseUrl.length), number };
}

describe('a lab computer and a phone', () => {
  it('signs the computer in after the phone picks the number it shows', async () => {
    const lab = await openPage(browser, sso);
    await openView(lab.page, '/#/');
    const { scanPath, number } = await computerShowsCode(lab.page);
    expect(scanPath).toMatch(/^\/#\/scan\?c=[A-Za-z0-9_-]+$/);
    expect(await seriousA11yViolations(lab.page)).toEqual([]);

    const phone = await openPage(browser, sso, { width: 375, height: 812 });
    await signInByApi(phone.page, MEMBER);
    await phone.page.goto(scanPath);
    await phone.page.getByTestId('scan-pick').waitFor();
    expect(await phone.page.getByTestId('scan-computer').textContent()).toContain('127.0.0.1');
    expect(await seriousA11yViolations(phone.page)).toEqual([]);
    await screenshots(phone.page, 'scan-pick');
    await phone.page.getByRole('button', { name: `Number ${number}`, exact: true }).click();
    await phone.page.getByTestId('scan-done').waitFor();

    // The computer notices by polling and shows the signed-in home page.
    await lab.page.getByText(`Welcome`, { exact: false }).first().waitFor({ timeout: 15_000 });
    const me = await lab.page.request.get('/v1/account/me');
    expect(me.status()).toBe(200);
    expect(((await me.json()) as { data: { uin: number } }).data.uin).toBe(MEMBER.uin);
    const sessions = (await (await lab.page.request.get('/v1/account/sessions')).json()) as {
      data: { sessions: { shared: boolean; current: boolean }[] };
    };
    expect(sessions.data.sessions.find((s) => s.current)?.shared).toBe(true);
    expect(lab.problems).toEqual([]);
    expect(phone.problems).toEqual([]);
    await lab.context.close();
    await phone.context.close();
  }, 90_000);

  it('ends the request at a wrong pick, and the computer shows a fresh QR code', async () => {
    const lab = await openPage(browser, sso);
    await openView(lab.page, '/#/');
    const { scanPath, number } = await computerShowsCode(lab.page);
    const phone = await openPage(browser, sso, { width: 375, height: 812 });
    await signInByApi(phone.page, MEMBER);
    await phone.page.goto(scanPath);
    await phone.page.getByTestId('scan-pick').waitFor();
    const wrong = (await phone.page.locator('.scan__choices button').allTextContents())
      .map((text) => text.trim())
      .find((text) => text !== number)!;
    const fresh = lab.page.waitForResponse(
      (response) =>
        response.url().endsWith('/v1/account/phone-sign-in') && response.request().method() === 'POST',
    );
    await phone.page.getByRole('button', { name: `Number ${wrong}`, exact: true }).click();
    await phone.page.getByTestId('scan-wrong').waitFor();
    expect(await seriousA11yViolations(phone.page)).toEqual([]);
    const renewed = (await (await fresh).json()) as { data: { scan_url: string } };
    expect(renewed.data.scan_url.slice(sso.baseUrl.length)).not.toBe(scanPath);
    expect((await lab.page.request.get('/v1/account/me')).status()).toBe(401);
    await lab.context.close();
    await phone.context.close();
  }, 90_000);
});
