/**
 * The pages for directory users (docs/interface.md#the-schools-directory), in English and Chinese: #/account
 * says the password is changed in the school directory instead of offering the form, and during a directory
 * outage the sign-in form says the directory is not answering.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDirectory, startTestDirectory } from '../helpers/slapd.js';
import { openPage, openView, signIn, type Sso, startWorld, stopWorld } from './helpers.js';

let directory: TestDirectory;
let sso: Sso;
let browser: Browser;
const PERSON = { uin: 6_100_000_001, password: 'directory pass 1' };

beforeAll(async () => {
  directory = await startTestDirectory();
  await directory.addPerson({ uin: PERSON.uin, cn: 'Ada Lovelace', password: PERSON.password });
  ({ sso, browser } = await startWorld({ env: directory.env() }));
}, 90_000);

afterAll(async () => {
  await stopWorld({ sso, browser });
  await directory?.close();
});

const ZH = { uin: '账号', password: '密码', submit: '登录' };

describe('#/account for a directory user', () => {
  it.each([
    ['en-US', undefined, 'Change your password in the school directory'],
    ['zh-CN', ZH, '请在学校目录中修改密码'],
  ] as const)(
    'in %s says where to change the password, with no change form',
    async (locale, labels, text) => {
      const { page, context, problems } = await openPage(browser, sso, { locale });
      try {
        await openView(page, '/#/account');
        await signIn(page, PERSON, labels);
        await expect.poll(() => page.getByTestId('directory-password').textContent()).toBe(text);
        expect(await page.locator('#pw-new').count()).toBe(0);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );
});

describe('the sign-in form during a directory outage', () => {
  it.each([
    ['en-US', undefined, 'The school directory is not answering'],
    ['zh-CN', ZH, '学校目录服务暂时无法连接'],
  ] as const)('in %s says the directory is not answering', async (locale, labels, text) => {
    await directory.stop();
    const { page, context } = await openPage(browser, sso, { locale });
    try {
      await openView(page, '/#/account');
      await signIn(page, PERSON, labels);
      await expect.poll(() => page.getByTestId('login-failure').textContent()).toContain(text);
    } finally {
      await context.close();
      await directory.start();
    }
  });
});
