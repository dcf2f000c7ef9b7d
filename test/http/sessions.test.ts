/**
 * Sessions people can see and end (docs/interface.md#sessions-and-sign-out): the list on #/account, signing
 * out one session or everywhere, an admin's sign-out, the idle timeout, and the shared-computer sign-in.
 */
import { describe, expect, it } from 'vitest';
import { TOUCH_INTERVAL_MS } from '../../src/domain/sessions.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { PASSWORD, REDIRECT_URI, freshUin, registerClient, signedInUser } from '../oauth/support.js';

interface Envelope<T = Record<string, unknown>> {
  code: number;
  msg: string;
  data: T;
}

interface SessionJson {
  id: string;
  created_at: string;
  last_seen_at: string;
  ip: string | null;
  user_agent: string | null;
  shared: boolean;
  current: boolean;
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

async function sessionsOf(browser: Browser): Promise<SessionJson[]> {
  const response = await browser.call('GET', '/v1/account/sessions');
  expect(response.status).toBe(200);
  return (await json<Envelope<{ sessions: SessionJson[] }>>(response)).data.sessions;
}

async function signIn(
  server: TestServer,
  uin: number,
  extra: Record<string, unknown> = {},
): Promise<Browser> {
  const browser = new Browser(server);
  const response = await browser.call(
    'POST',
    '/v1/account/login',
    { uin, password: PASSWORD, ...extra },
    { 'user-agent': 'Lab PC Firefox' },
  );
  expect(response.status).toBe(200);
  return browser;
}

const isSignedIn = async (browser: Browser): Promise<boolean> =>
  (await browser.call('GET', '/v1/account/me')).status === 200;

describeOnDatabases('sessions', { transport: 'inject', manualClock: true }, ({ server, clock }) => {
  describe('GET /v1/account/sessions', () => {
    it('lists the user’s sessions, newest first, with times, address, user agent and this one marked', async () => {
      const { uin, browser: first } = await signedInUser(server);
      clock.advance(1000);
      const second = await signIn(server, uin, { shared: true });
      const sessions = await sessionsOf(second);
      expect(sessions).toHaveLength(2);
      expect(sessions[0]).toEqual({
        id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
        created_at: expect.stringMatching(ISO_MS),
        last_seen_at: expect.stringMatching(ISO_MS),
        ip: '127.0.0.1',
        user_agent: 'Lab PC Firefox',
        shared: true,
        current: true,
      });
      expect(sessions[1]).toMatchObject({ shared: false, current: false });
      expect((await sessionsOf(first)).map((s) => s.current)).toEqual([false, true]);
    });

    it('answers 401 code -1 when not signed in', async () => {
      const response = await new Browser(server).call('GET', '/v1/account/sessions');
      expect(response.status).toBe(401);
      expect((await json<Envelope>(response)).code).toBe(-1);
    });

    it('never shows the cookie value', async () => {
      const { browser } = await signedInUser(server);
      const cookieValue = (browser.sessionCookie ?? '').split('=')[1] ?? '';
      expect(cookieValue.length).toBeGreaterThan(20);
      const text = await (await browser.call('GET', '/v1/account/sessions')).text();
      expect(text).not.toContain(cookieValue);
    });
  });

  describe('DELETE /v1/account/sessions/:id', () => {
    it('signs out another session of the user, which then no longer works', async () => {
      const { uin, browser: phone } = await signedInUser(server);
      const laptop = await signIn(server, uin);
      const phoneId = (await sessionsOf(phone)).find((s) => s.current)?.id;
      const response = await laptop.call('DELETE', `/v1/account/sessions/${phoneId}`);
      expect(response.status).toBe(200);
      expect(await isSignedIn(phone)).toBe(false);
      expect(await isSignedIn(laptop)).toBe(true);
    });

    it('answers 404 code 5 for a session of another user, and leaves it alone', async () => {
      const { browser: mine } = await signedInUser(server);
      const { browser: theirs } = await signedInUser(server);
      const theirId = (await sessionsOf(theirs))[0]?.id;
      const response = await mine.call('DELETE', `/v1/account/sessions/${theirId}`);
      expect(response.status).toBe(404);
      expect((await json<Envelope>(response)).code).toBe(5);
      expect(await isSignedIn(theirs)).toBe(true);
    });

    it('refuses a cross-site request', async () => {
      const { browser } = await signedInUser(server);
      const id = (await sessionsOf(browser))[0]?.id;
      const response = await browser.call('DELETE', `/v1/account/sessions/${id}`, undefined, {
        origin: 'https://evil.example',
      });
      expect(response.status).toBe(403);
      expect(await isSignedIn(browser)).toBe(true);
    });
  });

  describe('POST /v1/account/logout', () => {
    it('ends only this session without a body', async () => {
      const { uin, browser: one } = await signedInUser(server);
      const other = await signIn(server, uin);
      expect((await one.call('POST', '/v1/account/logout')).status).toBe(200);
      expect(await isSignedIn(one)).toBe(false);
      expect(await isSignedIn(other)).toBe(true);
    });

    it('ends every session of the user with {"everywhere":true}, and nobody else’s', async () => {
      const { uin, browser: one } = await signedInUser(server);
      const two = await signIn(server, uin);
      const { browser: someoneElse } = await signedInUser(server);
      const response = await one.call('POST', '/v1/account/logout', { everywhere: true });
      expect(response.status).toBe(200);
      expect(await isSignedIn(one)).toBe(false);
      expect(await isSignedIn(two)).toBe(false);
      expect(await isSignedIn(someoneElse)).toBe(true);
    });

    it('refuses unknown fields with 400 code 1', async () => {
      const { browser } = await signedInUser(server);
      const response = await browser.call('POST', '/v1/account/logout', { everywhere: 'yes' });
      expect(response.status).toBe(400);
      expect((await json<Envelope>(response)).code).toBe(1);
    });
  });

  describe('POST /v1/admin/users/:uin/sign-out', () => {
    it('ends every session of the user', async () => {
      const { browser: admin } = await signedInUser(server, 'admin');
      const { uin, browser: one } = await signedInUser(server);
      const two = await signIn(server, uin);
      const response = await admin.call('POST', `/v1/admin/users/${uin}/sign-out`, {});
      expect(response.status).toBe(200);
      expect((await json<Envelope>(response)).data).toEqual({ sessions_ended: 2 });
      expect(await isSignedIn(one)).toBe(false);
      expect(await isSignedIn(two)).toBe(false);
      expect(await isSignedIn(admin)).toBe(true);
    });

    it('answers 404 for an unknown user and 403 for a non-admin', async () => {
      const { browser: admin } = await signedInUser(server, 'admin');
      expect((await admin.call('POST', `/v1/admin/users/${freshUin()}/sign-out`, {})).status).toBe(404);
      const { uin } = await signedInUser(server);
      const { browser: member } = await signedInUser(server);
      expect((await member.call('POST', `/v1/admin/users/${uin}/sign-out`, {})).status).toBe(403);
    });
  });

  describe('idle timeout (SESSION_IDLE_TTL, 8 hours by default)', () => {
    it('ends a session left idle for 8 hours, while an active one lives on', async () => {
      const { browser: idle } = await signedInUser(server);
      const { browser: active } = await signedInUser(server);
      for (let i = 0; i < 9; i++) {
        clock.advance(HOUR - MINUTE);
        expect(await isSignedIn(active)).toBe(true);
      }
      expect(await isSignedIn(idle)).toBe(false);
    });

    it('writes activity at most once a minute', async () => {
      const { browser } = await signedInUser(server);
      const [before] = await sessionsOf(browser);
      clock.advance(TOUCH_INTERVAL_MS / 2);
      const [soon] = await sessionsOf(browser);
      expect(soon?.last_seen_at).toBe(before?.last_seen_at);
      clock.advance(TOUCH_INTERVAL_MS);
      await sessionsOf(browser);
      const [later] = await sessionsOf(browser);
      expect(Date.parse(later?.last_seen_at ?? '')).toBe(clock.now());
    });
  });

  describe('"This is a shared computer"', () => {
    it('sets a browser-session cookie: no Max-Age, no Expires', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'member');
      const shared = await server.fetch(`/v1/account/login`, {
        method: 'POST',
        headers: { origin: server.baseUrl, 'content-type': 'application/json' },
        body: JSON.stringify({ uin, password: PASSWORD, shared: true }),
      });
      const cookie = shared.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).not.toMatch(/Max-Age|Expires/i);
      const personal = await new Browser(server).login(uin, PASSWORD);
      expect(personal.headers.get('set-cookie')).toMatch(/Max-Age=604800/);
    });

    it('idles out after 15 minutes', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'member');
      const shared = await signIn(server, uin, { shared: true });
      const personal = await signIn(server, uin);
      clock.advance(14 * MINUTE);
      expect(await isSignedIn(shared)).toBe(true);
      clock.advance(14 * MINUTE);
      expect(await isSignedIn(shared)).toBe(true);
      clock.advance(16 * MINUTE);
      expect(await isSignedIn(shared)).toBe(false);
      expect(await isSignedIn(personal)).toBe(true);
    });

    it('tells the consent page to ask even when the app is already authorized', async () => {
      const client = await registerClient(server);
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'member');
      const shared = await signIn(server, uin, { shared: true });
      const params = { client_id: client.clientId, redirect_uri: REDIRECT_URI, state: 's' };
      expect(
        (await shared.call('POST', '/v1/oauth2/authorize', { ...params, decision: 'allow' })).status,
      ).toBe(200);
      const query = new URLSearchParams({ client_id: client.clientId, redirect_uri: REDIRECT_URI });
      const info = await json<Envelope<{ consented: boolean; shared_computer: boolean }>>(
        await shared.call('GET', `/v1/oauth2/app-info?${query}`),
      );
      expect(info.data).toMatchObject({ consented: true, shared_computer: true });
      const personal = await signIn(server, uin);
      const personalInfo = await json<Envelope<{ shared_computer: boolean }>>(
        await personal.call('GET', `/v1/oauth2/app-info?${query}`),
      );
      expect(personalInfo.data.shared_computer).toBe(false);
    });

    it('refuses to approve from a remembered consent without the user’s click (403 code 4)', async () => {
      const client = await registerClient(server);
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'member');
      const shared = await signIn(server, uin, { shared: true });
      const params = {
        client_id: client.clientId,
        redirect_uri: REDIRECT_URI,
        state: 's',
        decision: 'allow',
      };
      expect((await shared.call('POST', '/v1/oauth2/authorize', params)).status).toBe(200);
      const silent = await shared.call('POST', '/v1/oauth2/authorize', { ...params, remembered: true });
      expect(silent.status).toBe(403);
      expect((await json<Envelope>(silent)).code).toBe(4);
      const personal = await signIn(server, uin);
      expect(
        (await personal.call('POST', '/v1/oauth2/authorize', { ...params, remembered: true })).status,
      ).toBe(200);
    });
  });
});
