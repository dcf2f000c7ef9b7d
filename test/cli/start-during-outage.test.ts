/**
 * docs/operations.md#starting-during-an-outage: `campus-sso serve` started while PostgreSQL is unreachable
 * (connections refused, or stalled) stays up: `/healthz` 200, `/readyz` and every other call 503, the outage
 * logged once; it keeps trying with backoff, and once the database answers it migrates the database and
 * serves. The real process talks to PostgreSQL through a TCP proxy the test controls.
 */
import { afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/fixture.js';
import { Browser } from '../helpers/http.js';
import { TEST_DATABASE_URL, TEST_SECRET_KEY, freshPostgresSchema } from '../helpers/server.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { waitFor } from '../helpers/wait.js';
import { type ServeProcess, ensureBuilt, serveWithBaseUrl } from './cli-process.js';

/** Short timeouts, so a test sees in seconds what production sees in ten. */
const TIMEOUTS = {
  DATABASE_CONNECT_TIMEOUT_MS: '1000',
  DATABASE_QUERY_TIMEOUT_MS: '1500',
  DATABASE_STATEMENT_TIMEOUT_MS: '1000',
};

/** Waits until `condition` holds; fails after `timeoutMs`. */
async function until(
  what: string,
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 30_000,
): Promise<void> {
  await waitFor(condition, { what, timeout: timeoutMs, interval: 100 });
}

describeEachDatabase(
  'campus-sso serve started while PostgreSQL is unreachable',
  () => {
    const cleanups: (() => Promise<unknown>)[] = [];

    beforeAll(async () => {
      await ensureBuilt();
    }, 180_000);

    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    /** A fresh schema behind a fresh proxy, in `mode` before `serve` starts; `serve` started on it, listening. */
    async function startDuring(
      mode: 'cut' | 'stall',
    ): Promise<{ proxy: TcpProxy; serve: ServeProcess; baseUrl: string }> {
      const schema = await freshPostgresSchema();
      cleanups.push(schema.drop);
      const target = new URL(TEST_DATABASE_URL);
      const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
      cleanups.push(() => proxy.close());
      if (mode === 'cut') proxy.cut();
      else proxy.stall();
      const { serve, baseUrl } = await serveWithBaseUrl({
        DATABASE_URL: proxy.route(schema.url),
        SECRET_KEY: TEST_SECRET_KEY,
        LOG_LEVEL: 'info',
        SHUTDOWN_TIMEOUT: '3',
        ...TIMEOUTS,
      });
      cleanups.push(() => serve.stop());
      // Listening already: /healthz answers during the outage.
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
      return { proxy, serve, baseUrl };
    }

    /** Alive but not ready: /healthz 200, /readyz 503, and a call that needs the database 503 with Retry-After. */
    async function expectWaiting(serve: ServeProcess, baseUrl: string): Promise<void> {
      expect(serve.child.exitCode, serve.stderr).toBeNull();
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
      const readyz = await fetch(`${baseUrl}/readyz`);
      expect(readyz.status).toBe(503);
      const token = await fetch(`${baseUrl}/v1/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=authorization_code&code=x&client_id=y&client_secret=z',
      });
      expect(token.status).toBe(503);
      expect(token.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await token.json()) as { error: string }).error).toBe('temporarily_unavailable');
      const login = await new Browser(baseUrl).login(10000, 'a password');
      expect(login.status).toBe(503);
      expect(((await login.json()) as { code: number }).code).toBe(99);
    }

    /** Once the database answers: ready, migrated, and the first admin signs in with the logged password. */
    async function expectServing(serve: ServeProcess, baseUrl: string): Promise<void> {
      await until('/readyz 200', async () => (await fetch(`${baseUrl}/readyz`)).status === 200);
      const created = serve.logLines.find((line) =>
        String(line.msg).startsWith('first start: created admin'),
      );
      expect(created, serve.stdout).toBeDefined();
      const login = await new Browser(baseUrl).login(Number(created?.uin), String(created?.password));
      expect(login.status).toBe(200);
      // The outage was logged once, not once per attempt.
      const atStart = serve.logLines.filter((line) =>
        /^database unavailable at start/.test(String(line.msg)),
      );
      expect(atStart).toHaveLength(1);
      expect(serve.child.exitCode).toBeNull();
    }

    it('keeps trying while connections are refused, then migrates and serves once they are allowed', async () => {
      const { proxy, serve, baseUrl } = await startDuring('cut');
      // Several attempts were refused, and the process is still there.
      await until('three refused attempts', () => proxy.accepted >= 3);
      await expectWaiting(serve, baseUrl);
      proxy.restore();
      await expectServing(serve, baseUrl);
      expect(await serve.stop()).toBe(0);
    }, 90_000);

    it('keeps trying while the network is stalled, then migrates and serves once it is restored', async () => {
      const { proxy, serve, baseUrl } = await startDuring('stall');
      // More than one connect timeout: the first attempt timed out and the instance lived on.
      await until('two stalled attempts', () => proxy.accepted >= 2);
      await expectWaiting(serve, baseUrl);
      proxy.restore();
      await expectServing(serve, baseUrl);
      expect(await serve.stop()).toBe(0);
    }, 90_000);

    it('stops with exit 0 on SIGTERM while still waiting for the database', async () => {
      const { proxy, serve } = await startDuring('cut');
      await until('two refused attempts', () => proxy.accepted >= 2);
      const started = Date.now();
      expect(await serve.stop()).toBe(0);
      expect(Date.now() - started).toBeLessThan(5_000);
    }, 60_000);
  },
  ['postgres'],
);
