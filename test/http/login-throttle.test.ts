/** docs/security.md: sign-in is throttled per account — also against a burst of simultaneous guesses. */
import { expect, it } from 'vitest';
import { Browser } from '../helpers/http.js';
import { describeOnDatabases } from '../helpers/fixture.js';

let now = Date.UTC(2026, 0, 1);

describeOnDatabases(
  'POST /v1/account/login under a burst of guesses',
  { transport: 'inject', clock: { now: () => now } },
  ({ server }) => {
    it('checks at most five of thirty simultaneous wrong passwords and refuses the rest with 429', async () => {
      const uin = 4_000_000_001;
      await server.ctx.users.create(uin, 'the right password', 'user');
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => new Browser(server).login(uin, 'a wrong guess')),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 401)).toHaveLength(5);
      expect(statuses.filter((status) => status === 429)).toHaveLength(25);
      for (const answer of answers.filter((a) => a.status === 429)) {
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      const rightPassword = await new Browser(server).login(uin, 'the right password');
      expect(rightPassword.status).toBe(429);
    });

    it('still lets other accounts sign in while one is locked', async () => {
      const locked = 4_000_000_002;
      const other = 4_000_000_003;
      await server.ctx.users.create(locked, 'the right password', 'user');
      await server.ctx.users.create(other, 'the right password', 'user');
      for (let i = 0; i < 5; i++) await new Browser(server).login(locked, 'a wrong guess');
      expect((await new Browser(server).login(locked, 'the right password')).status).toBe(429);
      expect((await new Browser(server).login(other, 'the right password')).status).toBe(200);
    });

    it('checks the password of the next attempt after a lock expires: the right one 31 s later signs in', async () => {
      const uin = 4_000_000_004;
      await server.ctx.users.create(uin, 'the right password', 'user');
      for (let i = 0; i < 5; i++) {
        expect((await new Browser(server).login(uin, 'a wrong guess')).status).toBe(401);
      }
      expect((await new Browser(server).login(uin, 'the right password')).status).toBe(429);
      now += 31_000;
      const browser = new Browser(server);
      expect((await browser.login(uin, 'the right password')).status).toBe(200);
      expect((await browser.call('GET', '/v1/account/me')).status).toBe(200);
    });

    it('counts only checked attempts: a wrong password after the lock locks for one minute, not longer', async () => {
      const uin = 4_000_000_005;
      await server.ctx.users.create(uin, 'the right password', 'user');
      for (let i = 0; i < 5; i++) await new Browser(server).login(uin, 'a wrong guess');
      // Hammering during the lock is refused and not counted.
      for (let i = 0; i < 10; i++) await new Browser(server).login(uin, 'a wrong guess');
      now += 31_000;
      expect((await new Browser(server).login(uin, 'a wrong guess')).status).toBe(401);
      const refused = await new Browser(server).login(uin, 'the right password');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBe(60);
      now += 61_000;
      expect((await new Browser(server).login(uin, 'the right password')).status).toBe(200);
    });
  },
);
