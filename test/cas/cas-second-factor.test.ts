/**
 * CAS sign-in goes through the second factor (docs/interface.md#cas-protocol, #second-factor): a password
 * alone opens only a pending sign-in, which gets no ticket; the second factor completes it, and the ticket
 * names how the user signed in.
 */
import { generateSync } from 'otplib';
import { expect, it } from 'vitest';
import { PASSWORD, describeOnDatabases, freshUin } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import { SERVICE, casApp, casLogin, validate } from './support.js';

/** 2030-01-01T00:00:00Z: the first second of a 30-second TOTP step. */
const STEP_START = 1_893_456_000_000;
const STEP_MS = 30_000;

describeOnDatabases(
  'CAS sign-in with a second factor',
  { transport: 'inject', manualClock: STEP_START + 10_000 },
  ({ server, clock }) => {
    it('gives no ticket to a pending sign-in, and one after the TOTP code', async () => {
      await casApp(server);
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'member');
      const enrolling = new Browser(server);
      await enrolling.login(uin, PASSWORD);
      const setup = await json<{ data: { secret: string } }>(
        await enrolling.call('POST', '/v1/account/totp/setup', {}),
      );
      const code = (at: number): string =>
        generateSync({ secret: setup.data.secret, epoch: Math.floor(at / 1000) });
      expect(
        (await enrolling.call('POST', '/v1/account/totp/confirm', { code: code(clock.now()) })).status,
      ).toBe(200);
      clock.advance(STEP_MS);

      const browser = new Browser(server);
      const login = await json<{ data: { second_factor?: string[] } }>(await browser.login(uin, PASSWORD));
      expect(login.data.second_factor).toContain('totp');
      // The password alone: /cas/login sends the browser to the page, and the page's call is refused.
      expect((await casLogin(browser, { service: SERVICE })).headers.get('location')).not.toContain(
        'ticket=',
      );
      expect((await browser.call('POST', '/v1/cas/ticket', { service: SERVICE })).status).toBe(401);

      const done = await browser.call('POST', '/v1/account/login/second-factor', { totp: code(clock.now()) });
      expect(done.status).toBe(200);
      const issued = await json<{ data: { redirect_to: string } }>(
        await browser.call('POST', '/v1/cas/ticket', { service: SERVICE }),
      );
      const ticket = new URL(issued.data.redirect_to).searchParams.get('ticket') ?? '';
      const answer = await validate(server, '/cas/p3/serviceValidate', {
        ticket,
        service: SERVICE,
        renew: 'true',
      });
      expect(answer.body).toContain(`<cas:user>${uin}</cas:user>`);
      expect(answer.body).toContain(
        '<cas:successfulAuthenticationHandlers>OneTimePasswordAuthenticationHandler</cas:successfulAuthenticationHandlers>',
      );
      expect(answer.body).toContain('<cas:isFromNewLogin>true</cas:isFromNewLogin>');
    });
  },
);
