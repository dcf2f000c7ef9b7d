/**
 * docs/interface.md#the-envelope: a refused new password answers 400 code 1 with the English `msg` as before
 * and a stable `data.reason` the pages translate — the same reasons on every route where a password is chosen.
 */
import { describe, expect, it } from 'vitest';
import { PASSWORD, describeOnDatabases } from '../helpers/fixture.js';
import { Browser } from '../helpers/http.js';

interface Answer {
  status: number;
  code: number;
  reason: unknown;
}

async function answerOf(response: Response): Promise<Answer> {
  const body = (await response.json()) as { code: number; data: { reason?: unknown } };
  return { status: response.status, code: body.code, reason: body.data.reason };
}

const refused = (reason: string): Answer => ({ status: 400, code: 1, reason });

describeOnDatabases(
  'refused passwords carry a reason',
  { transport: 'inject', user: { group: 'admin', uin: 10_001 } },
  ({ server, user }) => {
    const admin = user.browser;

    describe('POST /v1/account/password', () => {
      it.each([
        ['short1', 'too_short'],
        ['zebra 8400001 lantern', 'contains_uin'],
        ['password', 'too_common'],
        ['aaaaaaaaaaaa', 'guessable'],
      ])('refuses %j with data.reason %s', async (password, reason) => {
        const uin = 8_400_001;
        if (!(await server.ctx.store.users.find(uin))) await server.ctx.users.create(uin, PASSWORD, 'user');
        const browser = new Browser(server);
        await browser.login(uin, PASSWORD);
        const answer = await answerOf(
          await browser.call('POST', '/v1/account/password', {
            current_password: PASSWORD,
            new_password: password,
          }),
        );
        expect(answer).toEqual(refused(reason));
      });
    });

    describe('POST /v1/account/password-reset', () => {
      it('refuses a new password containing the uin with data.reason contains_uin', async () => {
        const answer = await answerOf(
          await new Browser(server).call('POST', '/v1/account/password-reset', {
            uin: 8_400_002,
            code: 'ABCD-EFGH-JKMN',
            new_password: 'my 8400002 lantern',
          }),
        );
        expect(answer).toEqual(refused('contains_uin'));
      });

      it('refuses a common new password with data.reason too_common', async () => {
        const answer = await answerOf(
          await new Browser(server).call('POST', '/v1/account/password-reset', {
            uin: 8_400_002,
            code: 'ABCD-EFGH-JKMN',
            new_password: 'qwertyuiop',
          }),
        );
        expect(answer.reason).toMatch(/^(too_common|guessable)$/);
        expect(answer).toEqual(refused(answer.reason as string));
      });
    });

    describe('admin routes', () => {
      it('POST /v1/admin/users refuses a common password with data.reason too_common', async () => {
        const answer = await answerOf(
          await admin.call('POST', '/v1/admin/users', {
            uin: 8_400_003,
            password: 'password',
            user_group: 'user',
          }),
        );
        expect(answer).toEqual(refused('too_common'));
      });

      it('PATCH /v1/admin/users/:uin refuses a password containing the uin with data.reason contains_uin', async () => {
        await server.ctx.users.create(8_400_004, PASSWORD, 'user');
        const answer = await answerOf(
          await admin.call('PATCH', '/v1/admin/users/8400004', { password: 'x8400004-lantern' }),
        );
        expect(answer).toEqual(refused('contains_uin'));
      });
    });

    it('other 400 answers keep data empty', async () => {
      const response = await admin.call('POST', '/v1/admin/users', {
        uin: 0,
        password: PASSWORD,
        user_group: 'user',
      });
      const body = (await response.json()) as { data: unknown };
      expect(body.data).toEqual({});
    });
  },
);
