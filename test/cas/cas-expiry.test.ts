/**
 * CAS ticket lifetimes on a clock the test moves (docs/interface.md#cas-protocol): a service ticket lives
 * CAS_TICKET_TTL seconds, and a sign-in counts as new (isFromNewLogin, renew) for two minutes.
 */
import { expect, it } from 'vitest';
import { describeOnDatabases, signedInUser } from '../helpers/fixture.js';
import { SERVICE, casApp, failureCode, ticketFor, validate } from './support.js';

describeOnDatabases(
  'CAS ticket lifetimes',
  { transport: 'inject', manualClock: true },
  ({ server, clock }) => {
    it('refuses a ticket presented after CAS_TICKET_TTL (10 s) with INVALID_TICKET', async () => {
      await casApp(server);
      const { browser } = await signedInUser(server);
      const late = await ticketFor(browser);
      const inTime = await ticketFor(browser);
      clock.advance(9_999);
      expect(
        (await validate(server, '/cas/serviceValidate', { ticket: inTime, service: SERVICE })).body,
      ).toContain('cas:authenticationSuccess');
      clock.advance(1);
      expect(
        failureCode(
          (await validate(server, '/cas/serviceValidate', { ticket: late, service: SERVICE })).body,
        ),
      ).toBe('INVALID_TICKET');
    });

    it('marks a ticket isFromNewLogin only within two minutes of typing the password', async () => {
      await casApp(server, ['https://other.example.edu/']);
      const { browser } = await signedInUser(server);
      clock.advance(2 * 60_000 + 1);
      const ticket = await ticketFor(browser, 'https://other.example.edu/');
      const answer = await validate(server, '/cas/serviceValidate', {
        ticket,
        service: 'https://other.example.edu/',
        renew: 'true',
      });
      expect(failureCode(answer.body)).toBe('INVALID_TICKET');
    });
  },
);
