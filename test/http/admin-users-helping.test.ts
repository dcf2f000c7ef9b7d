/**
 * docs/interface.md#admin-api: what the Users list gives an admin who helps someone — who has which second
 * factor (docs/interface.md#second-factor), and finding people by name.
 */
import { expect, it } from 'vitest';
import { PASSWORD, describeOnDatabases, freshUin } from '../helpers/fixture.js';

describeOnDatabases(
  'GET /v1/admin/users: who has which second factor',
  { transport: 'inject', user: 'admin' },
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

describeOnDatabases('GET /v1/admin/users?name=', { transport: 'inject', user: 'admin' }, ({ user }) => {
  it('finds users whose display name contains the text, ignoring case, with the total', async () => {
    const created = [
      { uin: freshUin(), name: 'Li Hua' },
      { uin: freshUin(), name: 'Zhang Huan' },
      { uin: freshUin(), name: '王芳' },
      { uin: freshUin(), name: 'Wang 100%' },
    ];
    for (const person of created) {
      const answer = await user.browser.call('POST', '/v1/admin/users', {
        uin: person.uin,
        password: 'a fine long password 1',
        user_group: 'user',
        name: person.name,
      });
      expect(answer.status).toBe(200);
    }
    const names = async (query: string): Promise<{ names: string[]; total: number }> => {
      const answer = await user.browser.call('GET', `/v1/admin/users?name=${encodeURIComponent(query)}`);
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as { data: { users: { name: string }[]; total: number } };
      return { names: body.data.users.map((u) => u.name).sort(), total: body.data.total };
    };
    expect(await names('HUA')).toEqual({ names: ['Li Hua', 'Zhang Huan'], total: 2 });
    expect(await names('芳')).toEqual({ names: ['王芳'], total: 1 });
    // LIKE's wildcards are plain text here.
    expect(await names('0%')).toEqual({ names: ['Wang 100%'], total: 1 });
    expect(await names('_')).toEqual({ names: [], total: 0 });
  });
});
