/** An admin's password reset (PATCH /v1/admin/users/:uin with `password`) ends the user's sessions. */
import { expect, it } from 'vitest';
import { Browser } from '../helpers/http.js';
import { type DatabaseSuiteOptions, describeOnDatabases } from '../helpers/fixture.js';

const PASSWORD = 'admin password 1';

const SUITE: DatabaseSuiteOptions = {
  transport: 'inject',
  user: { group: 'admin', uin: 50_001, password: PASSWORD },
};

describeOnDatabases('PATCH /v1/admin/users/:uin password reset', SUITE, (fixture) => {
  const { server } = fixture;
  const admin = fixture.user.browser;

  it('signs the user out everywhere, since a reset usually follows a compromise', async () => {
    await server.ctx.users.create(50_002, 'student password', 'user');
    const phone = new Browser(server);
    const laptop = new Browser(server);
    await phone.login(50_002, 'student password');
    await laptop.login(50_002, 'student password');
    const reset = await admin.call('PATCH', '/v1/admin/users/50002', { password: 'a brand new password' });
    expect(reset.status).toBe(200);
    expect((await phone.call('GET', '/v1/account/me')).status).toBe(401);
    expect((await laptop.call('GET', '/v1/account/me')).status).toBe(401);
    expect((await new Browser(server).login(50_002, 'a brand new password')).status).toBe(200);
  });

  it("keeps the admin's own session when they reset their own password, and ends their others", async () => {
    const otherDevice = new Browser(server);
    await otherDevice.login(50_001, PASSWORD);
    const reset = await admin.call('PATCH', '/v1/admin/users/50001', { password: 'admin password 2' });
    expect(reset.status).toBe(200);
    expect((await admin.call('GET', '/v1/account/me')).status).toBe(200);
    expect((await otherDevice.call('GET', '/v1/account/me')).status).toBe(401);
  });
});
