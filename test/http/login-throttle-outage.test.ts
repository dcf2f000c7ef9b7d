/**
 * docs/security.md: an outage locks nobody out. The real server talks to PostgreSQL through a TCP proxy the
 * test controls, and the proxy cuts every connection after the attempt was counted and before its password
 * was checked: the attempt ends in 503, is never a failure, and its check gate is released, so once the
 * database is back the right password signs in.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, manualClock } from '../helpers/fixture.js';
import { Browser } from '../helpers/http.js';
import {
  TEST_DATABASE_URL,
  type TestServer,
  freshPostgresSchema,
  startTestServer,
} from '../helpers/server.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

const PASSWORD = 'the right password';

describeEachDatabase(
  'POST /v1/account/login when the database connection is cut mid-sign-in',
  () => {
    const clock = manualClock(Date.UTC(2026, 0, 1));
    let schema: { url: string; drop: () => Promise<void> };
    let proxy: TcpProxy;
    let server: TestServer;
    let authenticate: TestServer['ctx']['users']['authenticate'];
    let uin = 4_100_000_000;

    beforeAll(async () => {
      schema = await freshPostgresSchema();
      const target = new URL(TEST_DATABASE_URL);
      proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
      server = await startTestServer({
        transport: 'inject',
        databaseUrl: proxy.route(schema.url),
        clock,
        env: { DATABASE_CONNECT_TIMEOUT_MS: '1000', DATABASE_QUERY_TIMEOUT_MS: '1500' },
      });
      authenticate = server.ctx.users.authenticate.bind(server.ctx.users);
    }, 60_000);

    afterEach(() => {
      server.ctx.users.authenticate = authenticate;
      proxy.restore();
    });

    afterAll(async () => {
      proxy?.restore();
      await server?.close();
      await proxy?.close();
      await schema?.drop();
    });

    /** From now on every sign-in's connection is cut after its attempt was counted, before the check. */
    function cutBeforeEachCheck(): void {
      server.ctx.users.authenticate = async (...args) => {
        proxy.cut();
        return authenticate(...args);
      };
    }

    function signIn(user: number, password: string): Promise<Response> {
      return new Browser(server).login(user, password);
    }

    /** The first sign-in after the network returned (the pool may still hold a connection that broke). */
    async function signInOnceBack(user: number, password: string): Promise<Response> {
      for (let tries = 1; ; tries++) {
        const response = await signIn(user, password);
        if (response.status !== 503 || tries === 5) return response;
      }
    }

    it('does not count attempts cut off before their check: the right password then signs in', async () => {
      uin += 1;
      await server.ctx.users.create(uin, PASSWORD, 'user');
      cutBeforeEachCheck();
      for (let i = 0; i < 7; i++) {
        const response = await signIn(uin, PASSWORD);
        expect(response.status).toBe(503);
        proxy.restore();
      }
      server.ctx.users.authenticate = authenticate;
      const back = await signInOnceBack(uin, PASSWORD);
      expect(back.status).toBe(200);
    }, 60_000);

    it('releases the check gate of an attempt cut off after a lock expired', async () => {
      uin += 1;
      await server.ctx.users.create(uin, PASSWORD, 'user');
      for (let i = 0; i < 5; i++) expect((await signIn(uin, 'a wrong guess')).status).toBe(401);
      expect((await signIn(uin, PASSWORD)).status).toBe(429);
      clock.advance(31_000);
      cutBeforeEachCheck();
      expect((await signIn(uin, PASSWORD)).status).toBe(503);
      server.ctx.users.authenticate = authenticate;
      proxy.restore();
      const back = await signInOnceBack(uin, PASSWORD);
      expect(back.status).toBe(200);
    }, 60_000);

    it('still counts a wrong password whose lock could not be written when the connection was cut', async () => {
      uin += 1;
      await server.ctx.users.create(uin, PASSWORD, 'user');
      for (let i = 0; i < 4; i++) expect((await signIn(uin, 'a wrong guess')).status).toBe(401);
      const throttles = server.ctx.store.throttles;
      const lock = throttles.lock.bind(throttles);
      throttles.lock = async (...args) => {
        proxy.cut();
        return lock(...args);
      };
      try {
        expect((await signIn(uin, 'a wrong guess')).status).toBe(503);
      } finally {
        throttles.lock = lock;
      }
      proxy.restore();
      // The fifth failure stayed: the next attempt is over the budget (and, refused unchecked, not counted).
      const refused = await signInOnceBack(uin, PASSWORD);
      expect(refused.status).toBe(429);
      expect((await throttles.get(`uin:${uin}`))?.failures).toBe(5);
    }, 60_000);
  },
  ['postgres'],
);
