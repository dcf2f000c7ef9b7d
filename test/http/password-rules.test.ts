/**
 * docs/security.md: a new password has 8 to 256 characters, is not among the 10,000 most common passwords
 * (or as easy to guess) and does not contain the uin — wherever a password is chosen.
 */
import { describe, expect, it } from 'vitest';
import { PASSWORD, describeOnDatabases } from '../helpers/fixture.js';
import { Browser } from '../helpers/http.js';

const COMMON = ['12345678', 'password', 'qwertyui', '        '];

async function answerOf(response: Response): Promise<{ status: number; code: number; msg: string }> {
  const body = (await response.json()) as { code: number; msg: string };
  return { status: response.status, code: body.code, msg: body.msg };
}

describeOnDatabases(
  'choosing a password',
  { transport: 'inject', user: { group: 'admin', uin: 10_001 } },
  ({ server, user }) => {
    const admin = user.browser;

    describe('POST /v1/account/password', () => {
      it.each(COMMON)('refuses the common password %j with 400 code 1 saying why', async (common) => {
        await server.ctx.users.create(8_100_000 + COMMON.indexOf(common), PASSWORD, 'user');
        const browser = new Browser(server);
        await browser.login(8_100_000 + COMMON.indexOf(common), PASSWORD);
        const answer = await answerOf(
          await browser.call('POST', '/v1/account/password', {
            current_password: PASSWORD,
            new_password: common,
          }),
        );
        expect(answer).toEqual({
          status: 400,
          code: 1,
          msg: expect.stringMatching(/^new_password: password is too common/),
        });
      });

      it('refuses a password that contains the uin', async () => {
        await server.ctx.users.create(8_200_001, PASSWORD, 'user');
        const browser = new Browser(server);
        await browser.login(8_200_001, PASSWORD);
        const answer = await answerOf(
          await browser.call('POST', '/v1/account/password', {
            current_password: PASSWORD,
            new_password: 'zebra 8200001 lantern',
          }),
        );
        expect(answer).toEqual({
          status: 400,
          code: 1,
          msg: 'new_password: password must not contain the uin',
        });
      });

      it('accepts an uncommon password', async () => {
        await server.ctx.users.create(8_200_002, PASSWORD, 'user');
        const browser = new Browser(server);
        await browser.login(8_200_002, PASSWORD);
        const response = await browser.call('POST', '/v1/account/password', {
          current_password: PASSWORD,
          new_password: 'zebra lantern quietly',
        });
        expect(response.status).toBe(200);
      });
    });

    describe('POST /v1/admin/users and PATCH /v1/admin/users/:uin', () => {
      it('refuses a common password for a new user', async () => {
        const answer = await answerOf(
          await admin.call('POST', '/v1/admin/users', {
            uin: 8_300_001,
            password: 'password',
            user_group: 'user',
          }),
        );
        expect(answer).toEqual({
          status: 400,
          code: 1,
          msg: expect.stringMatching(/^password is too common/),
        });
      });

      it('refuses a reset password that contains the uin', async () => {
        await server.ctx.users.create(8_300_002, PASSWORD, 'user');
        const answer = await answerOf(
          await admin.call('PATCH', '/v1/admin/users/8300002', { password: 'x8300002-lantern' }),
        );
        expect(answer).toEqual({ status: 400, code: 1, msg: 'password must not contain the uin' });
      });
    });
  },
);
