/**
 * docs/operations.md: several instances on one PostgreSQL database serve together behind a load balancer —
 * nothing that another instance needs (sessions, codes, tokens, rate-limit counters) lives in one process's
 * memory.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Browser, json } from '../helpers/http.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

const UIN = 2_147_483_648_123;
const PASSWORD = 'correct horse battery';

describeOnDatabases(
  'two instances sharing one database',
  { transport: 'inject', databases: ['postgres'] },
  ({ server: a }) => {
    let b: TestServer;

    beforeAll(async () => {
      b = await startTestServer({ transport: 'inject', database: 'postgres', databaseUrl: a.databaseUrl });
      await a.ctx.users.create(UIN, PASSWORD, 'member');
    });

    afterAll(async () => {
      await b?.close();
    });

    it('accepts on one instance a session started on the other', async () => {
      const onA = new Browser(a);
      expect((await onA.login(UIN, PASSWORD)).status).toBe(200);
      const me = await b.fetch(`/v1/account/me`, { headers: { cookie: onA.sessionCookie ?? '' } });
      expect(me.status).toBe(200);
      expect((await json<{ data: { uin: number } }>(me)).data.uin).toBe(UIN);
    });

    it('ends the session everywhere when it is signed out on one instance', async () => {
      const onA = new Browser(a);
      await onA.login(UIN, PASSWORD);
      const cookie = onA.sessionCookie ?? '';
      const out = await b.fetch(`/v1/account/logout`, {
        method: 'POST',
        headers: { cookie, origin: b.baseUrl },
      });
      expect(out.status).toBe(200);
      const me = await a.fetch(`/v1/account/me`, { headers: { cookie } });
      expect(me.status).toBe(401);
    });

    it('shares the sign-in throttle: failures on one instance lock the account on the other', async () => {
      const victim = UIN + 1;
      await a.ctx.users.create(victim, PASSWORD, 'user');
      for (let i = 0; i < 5; i++) {
        const server = i % 2 === 0 ? a : b;
        const response = await new Browser(server).login(victim, 'wrong password');
        expect(response.status).toBe(401);
      }
      const locked = await new Browser(b).login(victim, PASSWORD);
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      const alsoLocked = await new Browser(a).login(victim, PASSWORD);
      expect(alsoLocked.status).toBe(429);
    });

    it('lets a user disabled through one instance be refused by the other', async () => {
      const student = UIN + 2;
      await a.ctx.users.create(student, PASSWORD, 'user');
      const onB = new Browser(b);
      expect((await onB.login(student, PASSWORD)).status).toBe(200);
      await a.ctx.users.setDisabled(student, true);
      expect((await onB.call('GET', '/v1/account/me')).status).toBe(401);
      expect((await new Browser(b).login(student, PASSWORD)).status).toBe(401);
    });
  },
);
