/**
 * "Sign in with your phone" (docs/interface.md#sign-in-with-your-phone): a lab computer's request, a signed-in
 * phone picking the computer's number among three, and the computer's poll with the secret only it holds.
 * Over real HTTP, on SQLite and PostgreSQL, with a clock the tests move.
 */
import { generateSync } from 'otplib';
import { describe, expect, it } from 'vitest';
import { PHONE_SIGN_IN_STARTS_PER_MINUTE } from '../../src/domain/phone-sign-ins.js';
import { EnvelopeCode } from '../../src/shared/envelope.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import { PASSWORD, freshUin } from '../oauth/support.js';

interface Envelope<T = Record<string, unknown>> {
  code: number;
  msg: string;
  data: T;
}

interface Started {
  id: string;
  number: number;
  scan_url: string;
  expires_at: string;
}

describeOnDatabases(
  'Sign in with your phone',
  { transport: 'inject', manualClock: true, user: 'admin' },
  ({ server, clock, user }) => {
    /** The lab computer: a browser that keeps every cookie it is given. */
    class Computer {
      readonly cookies = new Map<string, string>();
      async call(method: string, path: string): Promise<Response> {
        const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
        const response = await server.fetch(path, {
          method,
          headers: {
            origin: server.baseUrl,
            'user-agent': 'Mozilla/5.0 (Windows NT 10.0) Chrome/140 lab-pc-12',
            ...(cookie ? { cookie } : {}),
          },
        });
        for (const line of response.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const eq = pair!.indexOf('=');
          const [name, value] = [pair!.slice(0, eq), pair!.slice(eq + 1)];
          if (value === '') this.cookies.delete(name);
          else this.cookies.set(name, value);
        }
        return response;
      }
      async start(): Promise<Started> {
        const response = await this.call('POST', '/v1/account/phone-sign-in');
        expect(response.status).toBe(200);
        return (await json<Envelope<Started>>(response)).data;
      }
      async poll(): Promise<{
        status: number;
        body: Envelope<{ status?: string; uin?: number }>;
        setCookie: string[];
      }> {
        const response = await this.call('POST', '/v1/account/phone-sign-in/poll');
        return {
          status: response.status,
          body: await json(response),
          setCookie: response.headers.getSetCookie(),
        };
      }
    }

    async function phone(): Promise<{ uin: number; browser: Browser }> {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'member');
      const browser = new Browser(server);
      expect((await browser.login(uin, PASSWORD)).status).toBe(200);
      return { uin, browser };
    }

    const look = (browser: Browser, id: string) => browser.call('GET', `/v1/account/phone-sign-in/${id}`);
    const pick = (browser: Browser, id: string, number: number) =>
      browser.call('POST', `/v1/account/phone-sign-in/${id}/approve`, { number });

    async function auditActions(uin: number): Promise<string[]> {
      const response = await user.browser.call('GET', `/v1/admin/audit?uin=${uin}&limit=100`);
      const body = await json<Envelope<{ events: { action: string; outcome: string }[] }>>(response);
      return body.data.events.map((e) => `${e.action}:${e.outcome}`).reverse();
    }

    describe('the computer and the phone', () => {
      it('signs the computer in as the phone user, in a shared-computer session, once', async () => {
        const computer = new Computer();
        const started = await computer.start();
        expect(started.scan_url).toBe(`${server.baseUrl}/#/scan?c=${started.id}`);
        expect(started.number).toBeGreaterThanOrEqual(10);
        expect(started.number).toBeLessThanOrEqual(99);
        expect((await computer.poll()).body.data.status).toBe('pending');

        const { uin, browser } = await phone();
        const seen = await json<Envelope<{ ip: string; user_agent: string; choices: number[] }>>(
          await look(browser, started.id),
        );
        expect(seen.data.user_agent).toContain('lab-pc-12');
        expect(typeof seen.data.ip).toBe('string');
        expect(seen.data.choices).toHaveLength(3);
        expect(new Set(seen.data.choices).size).toBe(3);
        expect(seen.data.choices).toContain(started.number);
        // The choices stay the same however often the phone looks (no way to find the constant one).
        const again = await json<Envelope<{ choices: number[] }>>(await look(browser, started.id));
        expect(again.data.choices).toEqual(seen.data.choices);

        expect((await pick(browser, started.id, started.number)).status).toBe(200);
        const secret = computer.cookies.get('campus_sso_phone_sign_in')!;
        const polled = await computer.poll();
        expect(polled.status).toBe(200);
        expect(polled.body.data).toMatchObject({ status: 'approved', uin });
        const sessionCookie = polled.setCookie.find((line) => !line.startsWith('campus_sso_phone_sign_in='));
        // A shared-computer session: a browser-session cookie, no Max-Age.
        expect(sessionCookie).toBeDefined();
        expect(sessionCookie).not.toMatch(/Max-Age/i);
        const me = await computer.call('GET', '/v1/account/me');
        expect(me.status).toBe(200);
        const sessions = await json<Envelope<{ sessions: { shared: boolean; current: boolean }[] }>>(
          await computer.call('GET', '/v1/account/sessions'),
        );
        expect(sessions.data.sessions.find((s) => s.current)?.shared).toBe(true);

        // Single use: the secret is spent.
        // Single use: the secret is cleared, and presented again it signs nobody in.
        expect(computer.cookies.has('campus_sso_phone_sign_in')).toBe(false);
        const replay = new Computer();
        replay.cookies.set('campus_sso_phone_sign_in', secret);
        const second = await replay.poll();
        expect(second.body.data.status).toBe('expired');
        expect(second.setCookie).toEqual([]);
        expect(await auditActions(uin)).toEqual(
          expect.arrayContaining(['phone_sign_in_approved:success', 'sign_in:success']),
        );
      });

      it('ends the request at a wrong pick: the computer learns it failed, the right number no longer works', async () => {
        const computer = new Computer();
        const started = await computer.start();
        const { uin, browser } = await phone();
        const wrong = started.number === 99 ? 98 : started.number + 1;
        const refused = await pick(browser, started.id, wrong);
        expect(refused.status).toBe(409);
        expect((await json<Envelope>(refused)).code).toBe(EnvelopeCode.Conflict);
        expect((await computer.poll()).body.data.status).toBe('failed');
        expect((await pick(browser, started.id, started.number)).status).toBe(404);
        expect((await computer.poll()).body.data.status).toBe('failed');
        expect(await auditActions(uin)).toContain('phone_sign_in_approved:failure');
      });

      it('refuses polling without the secret, or with one it never gave', async () => {
        const computer = new Computer();
        const started = await computer.start();
        const { browser } = await phone();
        expect((await pick(browser, started.id, started.number)).status).toBe(200);
        // Someone who saw the QR code (its id) but holds no secret.
        const onlooker = new Computer();
        const bare = await onlooker.poll();
        expect(bare.status).toBe(401);
        onlooker.cookies.set('campus_sso_phone_sign_in', 'A'.repeat(43));
        expect((await onlooker.poll()).status).toBe(401);
        expect((await onlooker.call('GET', '/v1/account/me')).status).toBe(401);
        // The computer itself still gets in.
        expect((await computer.poll()).body.data.status).toBe('approved');
      });

      it('lets a request expire after 2 minutes on both sides', async () => {
        const computer = new Computer();
        const started = await computer.start();
        const { browser } = await phone();
        clock.advance(120_000);
        expect((await look(browser, started.id)).status).toBe(404);
        expect((await pick(browser, started.id, started.number)).status).toBe(404);
        expect((await computer.poll()).body.data.status).toBe('expired');
      });

      it("keeps the computer's secret cookie a minute past the request, so its poll reads expired", async () => {
        const response = await new Computer().call('POST', '/v1/account/phone-sign-in');
        const cookie = response.headers
          .getSetCookie()
          .find((line) => line.startsWith('campus_sso_phone_sign_in='));
        expect(Number(/Max-Age=(\d+)/i.exec(cookie ?? '')?.[1])).toBe(180);
      });

      it('needs a phone fully signed in: none, or a password whose second factor is pending, is 401', async () => {
        const computer = new Computer();
        const started = await computer.start();
        expect((await look(new Browser(server), started.id)).status).toBe(401);
        const uin = freshUin();
        await server.ctx.users.create(uin, PASSWORD, 'member');
        const setup = await server.ctx.totp.setup(uin);
        const code = generateSync({ secret: setup!.secret, epoch: Math.floor(clock.now() / 1000) });
        expect(await server.ctx.totp.confirm(uin, code)).toBe(true);
        const pending = new Browser(server);
        expect((await pending.login(uin, PASSWORD)).status).toBe(200);
        expect((await look(pending, started.id)).status).toBe(401);
        expect((await pick(pending, started.id, started.number)).status).toBe(401);
        expect((await computer.poll()).body.data.status).toBe('pending');
      });

      it('lets one of two racing picks approve', async () => {
        const computer = new Computer();
        const started = await computer.start();
        const a = await phone();
        const b = await phone();
        const answers = await Promise.all([
          pick(a.browser, started.id, started.number),
          pick(b.browser, started.id, started.number),
        ]);
        expect(answers.map((r) => r.status).sort()).toEqual([200, 404]);
        const winner = answers[0]!.status === 200 ? a.uin : b.uin;
        expect((await computer.poll()).body.data).toMatchObject({ status: 'approved', uin: winner });
      });
    });

    // Last in the suite: it spends this address's budget for the minute, then moves the clock past it.
    describe('new requests from one address', () => {
      it('starts 120 a minute and refuses the next with 429 code 7 and Retry-After, until the minute is over', async () => {
        clock.advance(61_000); // past the minute the earlier tests' starts counted in
        const starts = await Promise.all(
          Array.from({ length: PHONE_SIGN_IN_STARTS_PER_MINUTE }, () =>
            new Computer().call('POST', '/v1/account/phone-sign-in'),
          ),
        );
        expect(starts.map((r) => r.status)).toEqual(starts.map(() => 200));
        clock.advance(20_000);
        const refused = await new Computer().call('POST', '/v1/account/phone-sign-in');
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get('retry-after'))).toBe(40);
        expect(refused.headers.getSetCookie()).toEqual([]);
        expect(await json(refused)).toMatchObject({ code: EnvelopeCode.Throttled, data: {} });
        clock.advance(40_000);
        expect((await new Computer().start()).number).toBeGreaterThanOrEqual(10);
      });
    });
  },
);
