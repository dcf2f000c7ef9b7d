/**
 * docs/interface.md#second-factor: the Users list says who has which second factor, so an admin can help
 * someone who lost theirs (and `DELETE /v1/admin/users/:uin/second-factors` empties it).
 */
import { expect, it } from 'vitest';
import { PASSWORD, describeOnDatabases, freshUin } from '../helpers/fixture.js';

describeOnDatabases(
  'GET /v1/admin/users: who has which second factor',
  { user: 'admin' },
  ({ server, user }) => {
    it('lists second_factors per user (a confirmed authenticator app, passkeys), [] for none', async () => {
      const withTotp = freshUin();
      const without = freshUin();
      await server.ctx.users.create(withTotp, PASSWORD, 'user');
      await server.ctx.users.create(without, PASSWORD, 'user');
      await server.ctx.store.secondFactors.putUnconfirmedTotp({
        uin: withTotp,
        sealedSecret: 'sealed',
        confirmedAt: null,
        lastUsedStep: null,
        createdAt: Date.now(),
      });
      const list = async (): Promise<Map<number, unknown>> => {
        const answer = await user.browser.call('GET', `/v1/admin/users?limit=100`);
        const body = (await answer.json()) as { data: { users: { uin: number; second_factors: unknown }[] } };
        return new Map(body.data.users.map((u) => [u.uin, u.second_factors]));
      };
      // Unconfirmed: not a factor yet.
      expect((await list()).get(withTotp)).toEqual([]);
      await server.ctx.store.secondFactors.acceptTotpStep(withTotp, 1, { now: Date.now() });
      const listed = await list();
      expect(listed.get(withTotp)).toEqual(['totp']);
      expect(listed.get(without)).toEqual([]);
      expect((await user.browser.call('DELETE', `/v1/admin/users/${withTotp}/second-factors`)).status).toBe(
        200,
      );
      expect((await list()).get(withTotp)).toEqual([]);
    });
  },
);
