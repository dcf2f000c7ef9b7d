/** docs/security.md: sign-in is throttled per account — also against a burst of simultaneous guesses. */
import { expect, it } from 'vitest';
import { Browser } from '../helpers/http.js';
import { describeOnDatabases } from '../helpers/fixture.js';

describeOnDatabases('POST /v1/account/login under a burst of guesses', ({ server }) => {
  it('checks at most five of thirty simultaneous wrong passwords and refuses the rest with 429', async () => {
    const uin = 4_000_000_001;
    await server.ctx.users.create(uin, 'the right password', 'user');
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => new Browser(server.baseUrl).login(uin, 'a wrong guess')),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(25);
    for (const answer of answers.filter((a) => a.status === 429)) {
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const rightPassword = await new Browser(server.baseUrl).login(uin, 'the right password');
    expect(rightPassword.status).toBe(429);
  });

  it('still lets other accounts sign in while one is locked', async () => {
    const locked = 4_000_000_002;
    const other = 4_000_000_003;
    await server.ctx.users.create(locked, 'the right password', 'user');
    await server.ctx.users.create(other, 'the right password', 'user');
    for (let i = 0; i < 5; i++) await new Browser(server.baseUrl).login(locked, 'a wrong guess');
    expect((await new Browser(server.baseUrl).login(locked, 'the right password')).status).toBe(429);
    expect((await new Browser(server.baseUrl).login(other, 'the right password')).status).toBe(200);
  });
});
