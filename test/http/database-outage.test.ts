/**
 * docs/operations.md#when-the-database-is-unavailable: the real `campus-sso serve` (a child process, so an
 * unhandled error would end it) talks to PostgreSQL through a TCP proxy the test controls, which cuts and
 * stalls the connections during requests of every kind and then restores the network. The process never
 * exits, requests fail fast with 503 and Retry-After, the instance heals by itself within 30 s of the
 * network returning, and every token answered before a fault still works after it.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { type ServeProcess, ensureBuilt, runCli, serveWithBaseUrl } from '../cli/cli-process.js';
import { describeEachDatabase } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import { TEST_DATABASE_URL, TEST_SECRET_KEY, freshPostgresSchema } from '../helpers/server.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { waitFor } from '../helpers/wait.js';

const PASSWORD = 'correct horse battery staple';
const REDIRECT_URI = 'https://app.example.edu/callback';
const ADMIN_UIN = 10001;
const MEMBER_UIN = 10002;

/** Short timeouts, so a test sees in seconds what production sees in ten. */
const TIMEOUTS = {
  DATABASE_CONNECT_TIMEOUT_MS: '1000',
  DATABASE_QUERY_TIMEOUT_MS: '1500',
  DATABASE_STATEMENT_TIMEOUT_MS: '1000',
  DATABASE_KEEPALIVE_DELAY_MS: '1000',
};
/** The longest a request may take to fail: a connect timeout, then a query timeout, and some slack. */
const FAIL_FAST_MS = 5_000;
/** How soon after the network returns the instance must be healthy again. */
const HEAL_MS = 30_000;

/**
 * The fault's timing, which is what these tests are about (requests sent into a stalled network, an outage
 * of some length, exchanges spread over time when the cut lands): never a guess at when something is done,
 * which `waitFor` answers.
 */
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  readonly kind: string;
  readonly status: number;
  readonly ms: number;
  readonly retryAfter: string | null;
  readonly body: string;
}

describeEachDatabase(
  'a PostgreSQL connection that breaks',
  () => {
    let schema: { url: string; drop: () => Promise<void> };
    let proxy: TcpProxy;
    let serve: ServeProcess;
    let baseUrl: string;
    let client: { client_id: string; client_secret: string };
    let admin: Browser;
    let member: Browser;

    beforeAll(async () => {
      await ensureBuilt();
      schema = await freshPostgresSchema();
      const direct = { DATABASE_URL: schema.url, SECRET_KEY: TEST_SECRET_KEY };
      for (const [uin, group] of [
        [ADMIN_UIN, 'admin'],
        [MEMBER_UIN, 'member'],
      ] as const) {
        const added = await runCli(
          ['user', 'add', '--uin', String(uin), '--group', group, '--password-stdin'],
          direct,
          PASSWORD,
        );
        expect(added.code, added.stderr).toBe(0);
      }
      const app = await runCli(
        ['app', 'add', '--name', 'Library', '--emoji', '📚', '--redirect-uri', REDIRECT_URI],
        direct,
      );
      expect(app.code, app.stderr).toBe(0);
      client = JSON.parse(app.stdout) as typeof client;

      const target = new URL(TEST_DATABASE_URL);
      proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
      ({ serve, baseUrl } = await serveWithBaseUrl({
        DATABASE_URL: proxy.route(schema.url),
        SECRET_KEY: TEST_SECRET_KEY,
        // Not about second factors: the admin calls of each round sign in with a password alone.
        MFA_REQUIRED_GROUPS: '',
        LOG_LEVEL: 'info',
        SHUTDOWN_TIMEOUT: '3',
        ...TIMEOUTS,
      }));
      await waitFor(async () => (await fetch(`${baseUrl}/readyz`)).status === 200, {
        timeout: 20_000,
        interval: 100,
        what: '/readyz 200',
      });
      admin = await signedIn(ADMIN_UIN);
      member = await signedIn(MEMBER_UIN);
    }, 240_000);

    afterAll(async () => {
      const code = await serve?.stop();
      proxy?.restore();
      await proxy?.close();
      await schema?.drop();
      // The process lived through every fault, and stopped cleanly at the end.
      expect(serve?.stderr ?? '').not.toMatch(/Unhandled|uncaught/i);
      expect(code).toBe(0);
    }, 30_000);

    beforeEach(async () => {
      proxy.restore();
      await untilHealthy();
    }, HEAL_MS + 5_000);

    async function signedIn(uin: number): Promise<Browser> {
      const browser = new Browser(baseUrl);
      const response = await browser.login(uin, PASSWORD);
      expect(response.status).toBe(200);
      return browser;
    }

    /** The page's authorization call: a fresh code in `data.redirect_to`. */
    function authorize(browser: Browser): Promise<Response> {
      return browser.call('POST', '/v1/oauth2/authorize', {
        client_id: client.client_id,
        redirect_uri: REDIRECT_URI,
        decision: 'allow',
      });
    }

    async function freshCode(): Promise<string> {
      const response = await authorize(member);
      expect(response.status).toBe(200);
      const { data } = await json<{ data: { redirect_to: string } }>(response);
      return new URL(data.redirect_to).searchParams.get('code') ?? '';
    }

    function exchange(code: string): Promise<Response> {
      return fetch(`${baseUrl}/v1/oauth2/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }),
      });
    }

    async function accessToken(): Promise<string> {
      const response = await exchange(await freshCode());
      expect(response.status).toBe(200);
      return (await json<{ access_token: string }>(response)).access_token;
    }

    function userInfo(token: string): Promise<Response> {
      return fetch(`${baseUrl}/v1/oauth2/get-user-info`, { headers: { authorization: `Bearer ${token}` } });
    }

    async function timed(kind: string, request: () => Promise<Response>): Promise<Answer> {
      const started = Date.now();
      const response = await request();
      return {
        kind,
        status: response.status,
        ms: Date.now() - started,
        retryAfter: response.headers.get('retry-after'),
        body: await response.text(),
      };
    }

    /** What each kind of request needs that must be made while the database is up. */
    async function prepared(): Promise<{ code: string; token: string }> {
      return { code: await freshCode(), token: await accessToken() };
    }

    /** One request of every kind, all at once. */
    function everyKind({ code, token }: { code: string; token: string }): Promise<Answer[]> {
      return Promise.all([
        timed('sign-in', () => new Browser(baseUrl).login(MEMBER_UIN, PASSWORD)),
        timed('session', () => member.call('GET', '/v1/account/me')),
        timed('authorize', () => authorize(member)),
        timed('token', () => exchange(code)),
        timed('get-user-info', () => userInfo(token)),
        timed('admin', () => admin.call('GET', '/v1/admin/users')),
        timed('readyz', () => fetch(`${baseUrl}/readyz`)),
      ]);
    }

    /** Every answer is a fast 503 that says when to retry, in the convention of its endpoint. */
    function expectUnavailable(answers: readonly Answer[]): void {
      for (const answer of answers) {
        expect({ kind: answer.kind, status: answer.status }).toEqual({ kind: answer.kind, status: 503 });
        expect(answer.ms, answer.kind).toBeLessThan(FAIL_FAST_MS);
        if (answer.kind === 'readyz') continue;
        expect(answer.retryAfter, answer.kind).toMatch(/^\d+$/);
        const body = JSON.parse(answer.body) as Record<string, unknown>;
        if (answer.kind === 'token') expect(body.error).toBe('temporarily_unavailable');
        else expect(body.code, answer.kind).toBe(99);
      }
      expect(serve.child.exitCode).toBeNull();
    }

    /** Waits until /readyz is 200 and a request of every kind succeeds; fails after HEAL_MS. */
    async function untilHealthy(): Promise<number> {
      const started = Date.now();
      const healthy = await waitFor(
        async () => {
          if (serve.child.exitCode !== null) return 'exited';
          // A request of the round that fails (throws or is not 200) means: not yet.
          if ((await fetch(`${baseUrl}/readyz`)).status !== 200) return false;
          const answers = await everyKind(await prepared());
          return answers.every((answer) => answer.status === 200) && 'healthy';
        },
        { timeout: HEAL_MS, interval: 250, what: `health ${HEAL_MS} ms after the network returned` },
      );
      expect(healthy, serve.stderr).toBe('healthy');
      return Date.now() - started;
    }

    function logged(message: RegExp): Record<string, unknown>[] {
      return serve.logLines.filter((line) => message.test(String(line.msg)));
    }

    it('fails requests of every kind with 503 when their connection is cut mid-query, and lives on', async () => {
      const before = await prepared();
      const outagesBefore = logged(/^database unavailable:/).length;
      // Stall first, so every query is in flight when the connections are cut.
      proxy.stall();
      const inFlight = everyKind(before);
      await sleep(300);
      proxy.cut();
      expectUnavailable(await inFlight);
      // While the connections are refused, every request fails at once.
      expectUnavailable(await everyKind(before));
      proxy.restore();
      expect(await untilHealthy()).toBeLessThan(HEAL_MS);
      // The outage was logged once with its reason, then counted: never a stack trace per request.
      expect(logged(/^database unavailable:/).length - outagesBefore).toBe(1);
      expect(logged(/^request failed$/)).toEqual([]);
    }, 60_000);

    it('fails requests of every kind with 503 within the timeouts while the network is stalled', async () => {
      const before = await prepared();
      proxy.stall();
      expectUnavailable(await everyKind(before));
      const readyz = await timed('readyz', () => fetch(`${baseUrl}/readyz`));
      expect(readyz.status).toBe(503);
      // Bounded at 2 s by the server; the rest is slack for a loaded test machine.
      expect(readyz.ms).toBeLessThan(3_000);
    }, 60_000);

    it('heals by itself after a failover: the old connections stay silently dead, new ones work', async () => {
      // Fill the pool with connections, then silence them all for good and let new ones through.
      await Promise.all(Array.from({ length: 4 }, async () => everyKind(await prepared())));
      proxy.stall();
      await sleep(200);
      proxy.restore();
      expect(await untilHealthy()).toBeLessThan(HEAL_MS);
      // Healed for good: the next rounds all succeed.
      for (let round = 0; round < 3; round++) {
        const answers = await everyKind(await prepared());
        expect(answers.map((answer) => [answer.kind, answer.status])).toEqual(
          answers.map((answer) => [answer.kind, 200]),
        );
      }
    }, 90_000);

    it('loses no token it answered before or while the connections were cut', async () => {
      const codes = await Promise.all(Array.from({ length: 20 }, () => freshCode()));
      const answered: string[] = [];
      const exchanges = codes.map(async (code, index) => {
        await sleep(index * 15);
        try {
          const response = await exchange(code);
          if (response.status === 200)
            answered.push((await json<{ access_token: string }>(response)).access_token);
          else expect(response.status).toBe(503);
        } catch {
          // the answer itself did not arrive: not answered
        }
      });
      await sleep(120);
      proxy.cut();
      await Promise.all(exchanges);
      proxy.restore();
      await untilHealthy();
      expect(answered.length).toBeGreaterThan(0);
      for (const token of answered) expect((await userInfo(token)).status).toBe(200);
    }, 90_000);

    it('stops on SIGTERM with exit 0 while the network is stalled', async () => {
      await everyKind(await prepared());
      proxy.stall();
      const inFlight = everyKind({ code: 'x'.repeat(51), token: 't'.repeat(51) }).catch(() => undefined);
      await sleep(200);
      const started = Date.now();
      expect(await serve.stop()).toBe(0);
      // SHUTDOWN_TIMEOUT is 3 s; the requests in flight wait at most a query timeout.
      expect(Date.now() - started).toBeLessThan(6_000);
      await inFlight;
    }, 30_000);
  },
  ['postgres'],
);
