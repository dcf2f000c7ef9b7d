/**
 * docs/interface.md#service-tokens-at-the-admin-api: a service token at the admin API — no cookie, no CSRF check; it never
 * sets user_group or roles, never creates an admin, never acts on an admin or a role holder (a bulk call
 * with one such target is refused whole); its writes are audited with the app as actor.
 */
import { beforeAll, expect, it } from 'vitest';
import { rolesOf } from '../../src/domain/roles.js';
import { EnvelopeCode } from '../../src/shared/envelope.js';
import { describeOnDatabases, freshUin } from '../helpers/fixture.js';
import { NEW_PASSWORD, TAG_A, serviceToken, snapshot, targetUser, withToken } from './admin-roles-support.js';

describeOnDatabases('a service token at the admin API', { user: 'admin' }, ({ server, user }) => {
  let token = '';
  beforeAll(async () => {
    token = await serviceToken(server, user.browser, 'admin:users:write');
  });

  async function expectRefused(response: Response): Promise<void> {
    expect(response.status, await response.clone().text()).toBe(403);
    expect(await response.json()).toMatchObject({ code: EnvelopeCode.Forbidden });
  }

  it('creates a plain user, audited with the app as actor and no uin', async () => {
    const uin = freshUin();
    const created = await withToken(server, token, 'POST', '/v1/admin/users', {
      uin,
      password: NEW_PASSWORD,
      user_group: 'user',
      groups: [TAG_A],
    });
    expect(created.status).toBe(200);
    const audit = await user.browser.call('GET', `/v1/admin/audit?uin=${uin}&action=user_created`);
    const events = ((await audit.json()) as { data: { events: Record<string, unknown>[] } }).data.events;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actor_uin: null, actor_client_id: expect.stringMatching(/.+/) });
  });

  it('never creates an admin, alone or in an import (nothing is created)', async () => {
    const uin = freshUin();
    await expectRefused(
      await withToken(server, token, 'POST', '/v1/admin/users', {
        uin,
        password: NEW_PASSWORD,
        user_group: 'admin',
      }),
    );
    const other = freshUin();
    await expectRefused(
      await withToken(server, token, 'POST', '/v1/admin/users/import', {
        rows: [
          { line: 2, uin: String(other), user_group: 'user', password: NEW_PASSWORD },
          { line: 3, uin: String(uin), user_group: ' Admin ', password: NEW_PASSWORD },
        ],
      }),
    );
    expect(await server.ctx.store.users.find(uin)).toBeUndefined();
    expect(await server.ctx.store.users.find(other)).toBeUndefined();
  });

  it('never sets user_group or roles', async () => {
    const uin = await targetUser(server);
    const before = await snapshot(server, uin, 'none');
    await expectRefused(
      await withToken(server, token, 'PATCH', `/v1/admin/users/${uin}`, { user_group: 'admin' }),
    );
    await expectRefused(
      await withToken(server, token, 'PATCH', `/v1/admin/users/${uin}`, {
        roles: [{ role: 'helpdesk', groups: [TAG_A] }],
      }),
    );
    await expectRefused(
      await withToken(server, token, 'POST', '/v1/admin/users/bulk', {
        uins: [uin],
        action: 'set_group',
        user_group: 'admin',
      }),
    );
    expect(await snapshot(server, uin, 'none')).toBe(before);
    expect(await rolesOf(server.ctx, uin)).toEqual([]);
  });

  it('never acts on an admin or a role holder; a bulk call with one of them changes nobody', async () => {
    const plain = await targetUser(server);
    const admin = await targetUser(server);
    await server.ctx.users.changeAsAdmin(admin, { userGroup: 'admin' }, null);
    const helper = await targetUser(server);
    await server.ctx.store.roles.replace(helper, [{ role: 'helpdesk', groups: [TAG_A] }], Date.now());
    for (const uin of [admin, helper]) {
      const before = await snapshot(server, uin, 'none');
      await expectRefused(
        await withToken(server, token, 'PATCH', `/v1/admin/users/${uin}`, { password: NEW_PASSWORD }),
      );
      await expectRefused(await withToken(server, token, 'POST', `/v1/admin/users/${uin}/reset-code`));
      expect(await snapshot(server, uin, 'none')).toBe(before);
    }
    const plainBefore = await snapshot(server, plain, 'none');
    await expectRefused(
      await withToken(server, token, 'POST', '/v1/admin/users/bulk', {
        uins: [plain, admin],
        action: 'disable',
      }),
    );
    expect(await snapshot(server, plain, 'none')).toBe(plainBefore);
  });

  it('needs no CSRF check and ignores the cookie: a cross-site Origin passes, a bad token with an admin cookie does not', async () => {
    const uin = await targetUser(server);
    const crossSite = await fetch(`${server.baseUrl}/v1/admin/users/${uin}/unlock`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, origin: 'https://elsewhere.example' },
    });
    expect(crossSite.status).toBe(200);
    const cookie = user.browser.sessionCookie ?? '';
    const badToken = await fetch(`${server.baseUrl}/v1/admin/users`, {
      headers: { authorization: 'Bearer not-a-token', cookie },
    });
    expect(badToken.status).toBe(401);
    expect(badToken.headers.get('www-authenticate')).toContain('invalid_token');
    expect(await badToken.json()).toMatchObject({ code: EnvelopeCode.NotSignedIn });
  });
});
