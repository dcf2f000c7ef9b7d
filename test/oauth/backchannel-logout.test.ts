/**
 * OpenID Connect Back-Channel Logout 1.0 (docs/interface.md#sessions-and-sign-out): when a session ends, by
 * any way, every app that received an id_token in it gets a signed logout_token; deliveries are rows in the
 * database, retried with backoff, and delivered once between instances.
 */
import { createServer } from 'node:http';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCHEDULE } from '../../src/oauth/logout-delivery.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import { LogoutReceiver } from '../helpers/logout-receiver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { type Client, PASSWORD, freshUin, registerClient, signedInUser, tokensFor } from './support.js';
import { waitFor } from '../helpers/wait.js';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';
const HOUR = 3_600_000;

interface AppJson {
  backchannel_logout_last_attempt: { at: string; result: string } | null;
  backchannel_logout_pending: number;
}

function appWithBackchannel(server: TestServer, uri: string | null): Promise<Client> {
  return registerClient(server, { backchannelLogoutUri: uri });
}

/** A user signed in with an id_token from `client`; answers the session's sid (from the id_token). */
async function signedInWithIdToken(
  server: TestServer,
  clients: readonly Client[],
  browser?: Browser,
): Promise<{ uin: number; browser: Browser; sid: string }> {
  const user = browser ? { uin: 0, browser } : await signedInUser(server);
  let sid = '';
  for (const client of clients) {
    const tokens = await tokensFor(server, user.browser, client, { scope: 'openid', nonce: 'n-1' });
    sid = String(decodeJwt(tokens.id_token ?? '').sid);
  }
  expect(sid).toMatch(/^[A-Za-z0-9_-]{22}$/);
  return { ...user, sid };
}

async function adminApp(admin: Browser, clientId: string): Promise<AppJson> {
  const response = await admin.call('GET', `/v1/admin/apps/${clientId}`);
  return (await json<{ data: { app: AppJson } }>(response)).data.app;
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  await waitFor(check, { timeout: timeoutMs });
}

/** Waits until no back-channel logout to these apps is pending: each queued one has been sent. */
async function untilDelivered(server: TestServer, clients: readonly { clientId: string }[]): Promise<void> {
  await waitFor(
    async () => {
      const pending = await server.ctx.store.logouts.pendingByApp();
      return clients.every((client) => !pending.has(client.clientId));
    },
    { what: 'the queued back-channel logouts' },
  );
}

describeOnDatabases('back-channel logout', { user: 'admin' }, ({ server, user }) => {
  const admin = user.browser;
  let receiver: LogoutReceiver;

  beforeAll(async () => {
    receiver = await new LogoutReceiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  describe('the logout_token', () => {
    it('is a logout+jwt signed by a key in the JWKS, with iss, aud, iat, exp, jti, sub, sid, events and no nonce', async () => {
      const client = await appWithBackchannel(server, receiver.uri);
      const { uin, browser, sid } = await signedInWithIdToken(server, [client]);
      const before = receiver.received.length;
      expect((await browser.call('POST', '/v1/account/logout')).status).toBe(200);
      const [delivery] = (await receiver.waitFor(before + 1)).slice(before);
      expect(delivery?.contentType).toBe('application/x-www-form-urlencoded');
      const token = delivery?.logoutToken ?? '';
      const jwks = createRemoteJWKSet(new URL(`${server.baseUrl}/.well-known/jwks.json`));
      const { payload, protectedHeader } = await jwtVerify(token, jwks, {
        issuer: server.baseUrl,
        audience: client.clientId,
        typ: 'logout+jwt',
      });
      expect(protectedHeader.kid).toEqual(expect.any(String));
      expect(Object.keys(payload).sort()).toEqual([
        'aud',
        'events',
        'exp',
        'iat',
        'iss',
        'jti',
        'sid',
        'sub',
      ]);
      expect(payload).toMatchObject({ sub: String(uin), sid, aud: client.clientId, events: { [EVENT]: {} } });
      expect(payload).not.toHaveProperty('nonce');
      expect(payload.jti).toMatch(/^[A-Za-z0-9_-]{16,}$/);
      expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBeGreaterThan(0);
      expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBeLessThanOrEqual(300);
    });

    it('goes to every app that received an id_token in the session, and to no other', async () => {
      const first = await appWithBackchannel(server, receiver.uri);
      const second = await appWithBackchannel(server, receiver.uri);
      const withoutIdToken = await appWithBackchannel(server, receiver.uri);
      const { browser, sid } = await signedInWithIdToken(server, [first, second]);
      // An app that only got an access token (no openid scope) never learned of the session.
      await tokensFor(server, browser, withoutIdToken);
      const before = receiver.received.length;
      await browser.call('POST', '/v1/account/logout');
      const received = (await receiver.waitFor(before + 2)).slice(before);
      // The sign-out queued its deliveries before it answered; none is left, so any other has arrived too.
      await untilDelivered(server, [first, second, withoutIdToken]);
      expect(receiver.received.length).toBe(before + 2);
      const audiences = received.map((r) => decodeJwt(r.logoutToken ?? '')).map((p) => [p.aud, p.sid]);
      expect(audiences.sort()).toEqual(
        [
          [first.clientId, sid],
          [second.clientId, sid],
        ].sort(),
      );
    });

    it('is sent for the session a refresh token came from, too', async () => {
      const client = await appWithBackchannel(server, receiver.uri);
      const { browser, sid } = await signedInWithIdToken(server, [client]);
      const refreshed = await tokensFor(server, browser, client, { scope: 'openid offline_access' });
      const response = await server.fetch(`/v1/oauth2/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshed.refresh_token ?? '',
        }),
      });
      const body = await json<{ id_token: string }>(response);
      expect(decodeJwt(body.id_token).sid).toBe(sid);
    });
  });

  describe('every way a session ends', () => {
    const ways: Record<string, (ctx: { uin: number; browser: Browser; sid: string }) => Promise<unknown>> = {
      'signing out': ({ browser }) => browser.call('POST', '/v1/account/logout'),
      'signing out everywhere': ({ browser }) =>
        browser.call('POST', '/v1/account/logout', { everywhere: true }),
      'signing out that session from another one': async ({ uin, sid }) => {
        const other = new Browser(server);
        await other.login(uin, PASSWORD);
        return other.call('DELETE', `/v1/account/sessions/${sid}`);
      },
      'an admin signing the user out': ({ uin }) => admin.call('POST', `/v1/admin/users/${uin}/sign-out`, {}),
      'an admin resetting the password': ({ uin }) =>
        admin.call('PATCH', `/v1/admin/users/${uin}`, { password: 'a new long password 123' }),
      'an admin disabling the user': ({ uin }) =>
        admin.call('PATCH', `/v1/admin/users/${uin}`, { disabled: true }),
      'a password change in another session': async ({ uin }) => {
        const other = new Browser(server);
        await other.login(uin, PASSWORD);
        return other.call('POST', '/v1/account/password', {
          current_password: PASSWORD,
          new_password: 'another long password 456',
        });
      },
    };

    for (const [way, end] of Object.entries(ways)) {
      it(`tells the app when the session ends by ${way}`, async () => {
        const client = await appWithBackchannel(server, receiver.uri);
        const signedIn = await signedInWithIdToken(server, [client]);
        const response = (await end(signedIn)) as Response;
        expect(response.status).toBe(200);
        await eventually(async () =>
          receiver.received.some((r) => {
            const payload = decodeJwt(r.logoutToken ?? '');
            return payload.sid === signedIn.sid && payload.aud === client.clientId;
          }),
        );
      });
    }

    it('tells the app at once when the session ended before the code was exchanged', async () => {
      const client = await appWithBackchannel(server, receiver.uri);
      const { browser } = await signedInUser(server);
      const { obtainCode, exchangeCode } = await import('./support.js');
      const code = await obtainCode(browser, client, { scope: 'openid' });
      await browser.call('POST', '/v1/account/logout');
      const tokens = await json<{ id_token: string }>(await exchangeCode(server, client, code));
      const sid = decodeJwt(tokens.id_token).sid;
      await eventually(async () => receiver.received.some((r) => decodeJwt(r.logoutToken ?? '').sid === sid));
    });
  });

  describe('delivery', () => {
    it('never makes the user wait for a slow app', async () => {
      const hanging = createServer(() => undefined);
      await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
      const address = hanging.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      try {
        const client = await appWithBackchannel(server, `http://127.0.0.1:${port}/logout`);
        const { browser } = await signedInWithIdToken(server, [client]);
        const started = Date.now();
        expect((await browser.call('POST', '/v1/account/logout')).status).toBe(200);
        expect(Date.now() - started).toBeLessThan(1000);
      } finally {
        hanging.closeAllConnections();
        hanging.close();
      }
    });

    it('retries an app that is down and delivers once it is up; admins see the last attempt', async () => {
      const worker = server.logoutDeliveries;
      worker.schedule = { ...DEFAULT_SCHEDULE, firstRetryMs: 200, pollIntervalMs: 100 };
      const down = await new LogoutReceiver().start();
      down.down = true;
      try {
        const client = await appWithBackchannel(server, down.uri);
        const { browser, sid } = await signedInWithIdToken(server, [client]);
        await browser.call('POST', '/v1/account/logout');
        await eventually(
          async () => (await adminApp(admin, client.clientId)).backchannel_logout_last_attempt !== null,
        );
        const failing = await adminApp(admin, client.clientId);
        expect(failing.backchannel_logout_last_attempt?.result).toBe('HTTP 503');
        expect(failing.backchannel_logout_pending).toBe(1);
        down.down = false;
        const [delivered] = await down.waitFor(1);
        expect(decodeJwt(delivered?.logoutToken ?? '').sid).toBe(sid);
        await eventually(
          async () => (await adminApp(admin, client.clientId)).backchannel_logout_pending === 0,
        );
        expect((await adminApp(admin, client.clientId)).backchannel_logout_last_attempt?.result).toBe(
          'delivered',
        );
      } finally {
        worker.schedule = DEFAULT_SCHEDULE;
        await down.stop();
      }
    });
  });
});

const MANUAL_CLOCK = { manualClock: true } as const;

describeOnDatabases('back-channel retry schedule (a clock the test moves)', MANUAL_CLOCK, (fixture) => {
  const { server, clock } = fixture;
  let receiver: LogoutReceiver;

  beforeAll(async () => {
    // The test makes every pass itself.
    await server.logoutDeliveries.stop();
    receiver = await new LogoutReceiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  it('waits twice as long after each failure, and gives up after 24 hours', async () => {
    receiver.down = true;
    const worker = server.logoutDeliveries;
    const client = await appWithBackchannel(server, receiver.uri);
    const { browser } = await signedInWithIdToken(server, [client]);
    await browser.call('POST', '/v1/account/logout');

    expect(await worker.runOnce()).toBe(1); // fails: 503
    expect(await worker.runOnce()).toBe(0);
    clock.advance(DEFAULT_SCHEDULE.firstRetryMs);
    expect(await worker.runOnce()).toBe(1); // fails again: next in twice the wait
    clock.advance(DEFAULT_SCHEDULE.firstRetryMs);
    expect(await worker.runOnce()).toBe(0);
    clock.advance(DEFAULT_SCHEDULE.firstRetryMs);
    expect(await worker.runOnce()).toBe(1);

    // Down for a day: the attempts continue at most an hour apart, then stop.
    let attempts = 0;
    for (let hour = 0; hour < 26; hour++) {
      clock.advance(HOUR);
      attempts += await worker.runOnce();
    }
    expect(attempts).toBeGreaterThan(10);
    expect(attempts).toBeLessThan(26);
    receiver.down = false;
    clock.advance(HOUR);
    expect(await worker.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(0);
  });

  it('takes the claim of an instance that died once its lease runs out', async () => {
    receiver.down = false;
    const client = await appWithBackchannel(server, receiver.uri);
    const { browser } = await signedInWithIdToken(server, [client]);
    await browser.call('POST', '/v1/account/logout');
    // An instance claims the row and dies before sending.
    const claimed = await server.ctx.store.logouts.claimDue(
      clock.now(),
      clock.now() + DEFAULT_SCHEDULE.leaseMs,
      10,
    );
    expect(claimed).toHaveLength(1);
    const worker = server.logoutDeliveries;
    expect(await worker.runOnce()).toBe(0);
    clock.advance(DEFAULT_SCHEDULE.leaseMs);
    expect(await worker.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(1);
  });
});

const TWO_INSTANCES = { databases: ['postgres'] } as const;

describeOnDatabases('back-channel logout from two instances', TWO_INSTANCES, ({ server: a }) => {
  let b: TestServer;
  let receiver: LogoutReceiver;

  beforeAll(async () => {
    b = await startTestServer({ database: 'postgres', databaseUrl: a.databaseUrl });
    receiver = await new LogoutReceiver().start();
  });
  afterAll(async () => {
    await b?.close();
    await receiver?.stop();
  });

  it('deliver each logout exactly once between them', async () => {
    const client = await appWithBackchannel(a, receiver.uri);
    const sessions: { browser: Browser; sid: string }[] = [];
    for (let i = 0; i < 12; i++) {
      const uin = freshUin();
      await a.ctx.users.create(uin, PASSWORD, 'member');
      const browser = new Browser(i % 2 === 0 ? a : b);
      await browser.login(uin, PASSWORD);
      sessions.push(await signedInWithIdToken(i % 2 === 0 ? a : b, [client], browser));
    }
    await Promise.all(sessions.map(({ browser }) => browser.call('POST', '/v1/account/logout')));
    // Both instances' workers run (woken by their own sign-outs and on their timers), and more passes race.
    await Promise.all([a, b, a, b].map((server) => server.logoutDeliveries.runOnce()));
    await receiver.waitFor(sessions.length);
    // Every row delivered, and both workers stopped after the attempts under way: a duplicate has arrived.
    await untilDelivered(a, [client]);
    await Promise.all([a, b].map((server) => server.logoutDeliveries.stop()));
    const sids = receiver.received.map((r) => decodeJwt(r.logoutToken ?? '').sid);
    expect(sids).toHaveLength(sessions.length);
    expect(new Set(sids)).toEqual(new Set(sessions.map((s) => s.sid)));
    expect(decodeProtectedHeader(receiver.received[0]?.logoutToken ?? '').typ).toBe('logout+jwt');
  });
});
