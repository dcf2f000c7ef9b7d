/**
 * docs/interface.md#roles: roles beside user_group, set by an admin and shown in the user views and
 * `/v1/account/me`; a role holder reaches only the people of their groups and raises nobody's rights, their
 * own least of all; a route without a declared permission cannot be registered.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app-context.js';
import { adminUserViewOf } from '../../src/domain/admin-reads.js';
import { rolesOf } from '../../src/domain/roles.js';
import { registerAdminGate } from '../../src/http/routes/admin/gate.js';
import { EnvelopeCode } from '../../src/shared/envelope.js';
import { describeOnDatabases, signedInUser } from '../helpers/fixture.js';
import { Browser } from '../helpers/http.js';
import { NEW_PASSWORD, TAG_A, TAG_B, roleHolder, snapshot, targetUser } from './admin-roles-support.js';

interface UserJson {
  readonly uin: number;
  readonly user_group: string;
  readonly roles: readonly { role: string; groups: string[] }[];
}

async function data<T>(response: Response): Promise<T> {
  return ((await response.json()) as { data: T }).data;
}

async function expectForbidden(response: Response): Promise<void> {
  expect(response.status, await response.clone().text()).toBe(403);
  expect(await response.json()).toMatchObject({ code: EnvelopeCode.Forbidden });
}

describe('the admin gate', () => {
  it('refuses to register an admin route that declares no permission', async () => {
    const probe = Fastify();
    const registering = (async () => {
      await probe.register(async (app) => {
        registerAdminGate(app as never, {} as AppContext);
        app.get('/v1/admin/forgotten', async () => ({}));
      });
      await probe.ready();
    })();
    await expect(registering).rejects.toThrow(/GET \/v1\/admin\/forgotten declares no permission/);
  });
});

describeOnDatabases('roles set by an admin', { user: 'admin' }, ({ server, user }) => {
  it('PATCH {roles} sets them; the user views and /v1/account/me show them; user_group stays', async () => {
    const helper = await signedInUser(server, 'user');
    const roles = [
      { role: 'helpdesk', groups: [TAG_A, TAG_B] },
      { role: 'auditor', groups: [TAG_A] },
    ];
    const patched = await user.browser.call('PATCH', `/v1/admin/users/${helper.uin}`, { roles });
    expect(patched.status).toBe(200);
    // Stored and shown in the order of the roles' names.
    const expected = [roles[1], roles[0]];
    expect((await data<{ user: UserJson }>(patched)).user).toMatchObject({
      user_group: 'user',
      roles: expected,
    });
    const viewed = await data<{ user: UserJson }>(
      await user.browser.call('GET', `/v1/admin/users/${helper.uin}`),
    );
    expect(viewed.user.roles).toEqual(expected);
    const me = await data<UserJson>(await helper.browser.call('GET', '/v1/account/me'));
    expect(me).toMatchObject({ uin: helper.uin, user_group: 'user', roles: expected });
    const listed = await data<{ users: UserJson[] }>(
      await user.browser.call('GET', `/v1/admin/users?search=${helper.uin}`),
    );
    expect(listed.users.find((u) => u.uin === helper.uin)?.roles).toEqual(expected);

    expect((await user.browser.call('PATCH', `/v1/admin/users/${helper.uin}`, { roles: [] })).status).toBe(
      200,
    );
    expect(await rolesOf(server.ctx, helper.uin)).toEqual([]);
    // Without a role, /v1/account/me is the plain {uin, user_group, created_at} again.
    expect(
      Object.keys(await data<UserJson>(await helper.browser.call('GET', '/v1/account/me'))).sort(),
    ).toEqual(['created_at', 'uin', 'user_group']);
  });

  it('refuses a role without groups, a role given twice, an unknown role or a bad tag with 400', async () => {
    const uin = await targetUser(server);
    for (const roles of [
      [{ role: 'helpdesk', groups: [] }],
      [
        { role: 'helpdesk', groups: [TAG_A] },
        { role: 'helpdesk', groups: [TAG_B] },
      ],
      [{ role: 'superuser', groups: [TAG_A] }],
      [{ role: 'auditor', groups: ['Not A Tag'] }],
    ]) {
      const answer = await user.browser.call('PATCH', `/v1/admin/users/${uin}`, { roles });
      expect(answer.status, JSON.stringify(roles)).toBe(400);
      expect(await rolesOf(server.ctx, uin)).toEqual([]);
    }
  });
});

describeOnDatabases('what a role holder may not do', { user: 'admin' }, ({ server, user }) => {
  it('PATCH with roles and other fields is one change: a bad role leaves the rest unchanged; a repeated tag is kept once', async () => {
    const uin = await targetUser(server);
    const refused = await user.browser.call('PATCH', `/v1/admin/users/${uin}`, {
      name: 'Renamed',
      roles: [{ role: 'helpdesk', groups: [] }],
    });
    expect(refused.status).toBe(400);
    expect(await adminUserViewOf(server.ctx, uin)).toMatchObject({ name: null, roles: [] });

    const changed = await user.browser.call('PATCH', `/v1/admin/users/${uin}`, {
      name: 'Renamed',
      roles: [{ role: 'helpdesk', groups: [TAG_A, TAG_A] }],
    });
    expect(changed.status).toBe(200);
    expect((await data<{ user: UserJson & { name: string } }>(changed)).user).toMatchObject({
      name: 'Renamed',
      roles: [{ role: 'helpdesk', groups: [TAG_A] }],
    });
    // One change, one audit event naming both.
    const events = await server.ctx.store.audit.list({ uin, actions: ['user_updated'], limit: 10 });
    expect(events.map((event) => event.detail)).toEqual([
      { fields: ['name', 'roles'], roles: [{ role: 'helpdesk', groups: [TAG_A] }] },
    ]);
  });

  it('a helpdesk member sets a password for one of their people, who must change it at the next sign-in', async () => {
    const helpdesk = await roleHolder(server, [{ role: 'helpdesk', groups: [TAG_A] }]);
    const uin = await targetUser(server);
    const answer = await helpdesk.browser.call('PATCH', `/v1/admin/users/${uin}`, { password: NEW_PASSWORD });
    expect(answer.status).toBe(200);
    const login = await new Browser(server.baseUrl).login(uin, NEW_PASSWORD);
    expect(await data<{ must_change_password?: boolean }>(login)).toMatchObject({
      must_change_password: true,
    });
  });

  it('nobody raises their own rights: roles, user_group, groups, password of themselves', async () => {
    const helpdesk = await roleHolder(server, [{ role: 'helpdesk', groups: [TAG_A] }]);
    await server.ctx.users.changeAsAdmin(helpdesk.uin, { groups: [TAG_A] }, null);
    const auditor = await roleHolder(server, [{ role: 'auditor', groups: [TAG_A] }]);
    for (const [who, uin] of [
      [helpdesk.browser, helpdesk.uin],
      [auditor.browser, auditor.uin],
    ] as const) {
      for (const body of [
        { roles: [{ role: 'helpdesk', groups: [TAG_A, TAG_B] }] },
        { user_group: 'admin' },
        { groups: [TAG_A, TAG_B] },
        { password: NEW_PASSWORD },
      ]) {
        const before = await snapshot(server, uin, 'none');
        await expectForbidden(await who.call('PATCH', `/v1/admin/users/${uin}`, body));
        expect(await snapshot(server, uin, 'none')).toBe(before);
      }
    }
    await expectForbidden(
      await helpdesk.browser.call('POST', '/v1/admin/users/bulk', {
        uins: [helpdesk.uin],
        action: 'add_tag',
        tag: TAG_B,
      }),
    );
    expect(await rolesOf(server.ctx, helpdesk.uin)).toEqual([{ role: 'helpdesk', groups: [TAG_A] }]);
  });

  it('a helpdesk member changes nothing but a password, even for their own people', async () => {
    const helpdesk = await roleHolder(server, [{ role: 'helpdesk', groups: [TAG_A] }]);
    const uin = await targetUser(server);
    for (const body of [
      { user_group: 'admin' },
      { roles: [{ role: 'auditor', groups: [TAG_A] }] },
      { groups: [TAG_A, TAG_B] },
      { disabled: true },
      { password: NEW_PASSWORD, name: 'Renamed' },
    ]) {
      const before = await snapshot(server, uin, 'none');
      await expectForbidden(await helpdesk.browser.call('PATCH', `/v1/admin/users/${uin}`, body));
      expect(await snapshot(server, uin, 'none')).toBe(before);
    }
  });

  it('admins and other role holders carrying the group are out of reach, and so is their audit trail', async () => {
    const helpdesk = await roleHolder(server, [{ role: 'helpdesk', groups: [TAG_A] }]);
    const admin = await targetUser(server);
    await server.ctx.users.changeAsAdmin(admin, { userGroup: 'admin' }, null);
    const colleague = await targetUser(server);
    await user.browser.call('PATCH', `/v1/admin/users/${colleague}`, {
      roles: [{ role: 'auditor', groups: [TAG_B] }],
    });
    for (const uin of [admin, colleague]) {
      const before = await snapshot(server, uin, 'none');
      await expectForbidden(await helpdesk.browser.call('GET', `/v1/admin/users/${uin}`));
      await expectForbidden(await helpdesk.browser.call('POST', `/v1/admin/users/${uin}/reset-code`));
      await expectForbidden(await helpdesk.browser.call('POST', `/v1/admin/users/${uin}/sign-out`));
      await expectForbidden(await helpdesk.browser.call('GET', `/v1/admin/audit?uin=${uin}`));
      expect(await snapshot(server, uin, 'none')).toBe(before);
    }
    const listed = await data<{ users: UserJson[] }>(
      await helpdesk.browser.call('GET', `/v1/admin/users?tag=${TAG_A}&limit=200`),
    );
    expect(listed.users.map((u) => u.uin)).not.toContain(admin);
    expect(listed.users.map((u) => u.uin)).not.toContain(colleague);
    expect(listed.users.every((u) => u.user_group !== 'admin' && u.roles.length === 0)).toBe(true);
  });

  it('an auditor reads the admins and helpdesk members carrying their group, and their audit events, and changes nothing', async () => {
    const auditor = await roleHolder(server, [{ role: 'auditor', groups: [TAG_A] }]);
    const admin = await targetUser(server, [TAG_A]);
    await server.ctx.users.changeAsAdmin(admin, { userGroup: 'admin' }, null);
    const helpdesk = await roleHolder(server, [{ role: 'helpdesk', groups: [TAG_B] }]);
    await server.ctx.users.changeAsAdmin(helpdesk.uin, { groups: [TAG_A] }, null);
    // What the helpdesk member did is what the auditor checks.
    const student = await targetUser(server, [TAG_B]);
    expect((await helpdesk.browser.call('POST', `/v1/admin/users/${student}/unlock`)).status).toBe(200);
    for (const uin of [admin, helpdesk.uin]) {
      const viewed = await auditor.browser.call('GET', `/v1/admin/users/${uin}`);
      expect(viewed.status).toBe(200);
      expect((await data<{ user: UserJson }>(viewed)).user.uin).toBe(uin);
      const before = await snapshot(server, uin, 'none');
      await expectForbidden(await auditor.browser.call('POST', `/v1/admin/users/${uin}/unlock`));
      await expectForbidden(await auditor.browser.call('PATCH', `/v1/admin/users/${uin}`, { name: 'X' }));
      expect(await snapshot(server, uin, 'none')).toBe(before);
    }
    const trail = await data<{
      events: { action: string; actor_uin: number | null; target: string | null }[];
    }>(await auditor.browser.call('GET', `/v1/admin/audit?uin=${helpdesk.uin}`));
    expect(trail.events).toContainEqual(
      expect.objectContaining({
        action: 'user_unlocked',
        actor_uin: helpdesk.uin,
        target: `user:${student}`,
      }),
    );
    const listed = await data<{ users: UserJson[] }>(
      await auditor.browser.call('GET', `/v1/admin/users?tag=${TAG_A}&limit=200`),
    );
    expect(listed.users.map((u) => u.uin)).toEqual(expect.arrayContaining([admin, helpdesk.uin]));
    // Someone carrying none of the auditor's groups stays out of reach.
    await expectForbidden(await auditor.browser.call('GET', `/v1/admin/users/${student}`));
    expect(listed.users.map((u) => u.uin)).not.toContain(student);
  });

  it("an auditor's audit view holds only events by or on their people", async () => {
    const auditor = await roleHolder(server, [{ role: 'auditor', groups: [TAG_B] }]);
    const mine = await targetUser(server, [TAG_B]);
    const other = await targetUser(server, [TAG_A]);
    for (const uin of [mine, other]) await user.browser.call('POST', `/v1/admin/users/${uin}/unlock`);
    const events = await data<{ events: { target: string | null; actor_uin: number | null }[] }>(
      await auditor.browser.call('GET', '/v1/admin/audit?limit=500'),
    );
    expect(events.events.map((e) => e.target)).toContain(`user:${mine}`);
    expect(events.events.map((e) => e.target)).not.toContain(`user:${other}`);
  });
});

describeOnDatabases(
  'role holders and MFA_REQUIRED_GROUPS',
  { user: 'admin', env: { MFA_REQUIRED_GROUPS: 'user' } },
  ({ server }) => {
    it('a helpdesk member of a group that needs a second factor is refused with a password-only session (403 code 8)', async () => {
      const helpdesk = await roleHolder(server, [{ role: 'helpdesk', groups: [TAG_A] }]);
      const answer = await helpdesk.browser.call('GET', '/v1/admin/users');
      expect(answer.status).toBe(403);
      expect(await answer.json()).toMatchObject({ code: EnvelopeCode.SecondFactorRequired });
    });
  },
);
