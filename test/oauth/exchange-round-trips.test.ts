/**
 * The code exchange's cost on PostgreSQL, in statements sent (each one a round trip when the exchange is
 * alone): the standard and the legacy endpoint (docs/architecture.md#one-request-end-to-end).
 */
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeOnDatabases } from '../helpers/fixture.js';
import { exchangeCode, expectOAuthError, legacyExchange, obtainCode, registerClient } from './support.js';

describeOnDatabases(
  'the code exchange on PostgreSQL',
  { transport: 'inject', client: true, user: 'member', databases: ['postgres'] },
  ({ server, client, user }) => {
    let statements: string[] = [];
    const query = pg.Client.prototype.query;

    beforeEach(() => {
      statements = [];
    });
    afterEach(() => {
      pg.Client.prototype.query = query;
    });

    /** Runs `exchange` with every statement it sends counted. */
    async function counting(exchange: () => Promise<Response>): Promise<Response> {
      const sent = statements;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const config = args[0];
        sent.push(typeof config === 'string' ? config : String((config as { text?: string }).text));
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      try {
        return await exchange();
      } finally {
        pg.Client.prototype.query = query;
      }
    }

    it('redeems a code in two statements at the token endpoint', async () => {
      const code = await obtainCode(user.browser, client);
      const response = await counting(() => exchangeCode(server, client, code));
      expect(response.status).toBe(200);
      expect(statements).toHaveLength(2);
    });

    it('redeems a code in two statements at the legacy endpoint', async () => {
      const code = await obtainCode(user.browser, client);
      const response = await counting(() =>
        legacyExchange(server, { client_id: client.clientId, client_secret: client.clientSecret, code }),
      );
      expect(response.status).toBe(200);
      expect(statements).toHaveLength(2);
    });
  },
);

describeOnDatabases(
  'the code exchange authenticates its client with the code read',
  { transport: 'inject', client: true, user: 'member' },
  ({ server, client, user }) => {
    it('refuses a wrong secret or an unknown client with invalid_client, and leaves the code unused', async () => {
      const code = await obtainCode(user.browser, client);
      const wrong = await exchangeCode(server, { ...client, clientSecret: 'not-the-secret' }, code);
      await expectOAuthError(wrong, 401, 'invalid_client');
      const unknown = await exchangeCode(server, { ...client, clientId: 'no-such-client-id' }, code);
      await expectOAuthError(unknown, 401, 'invalid_client');
      const legacy = await legacyExchange(server, {
        client_id: client.clientId,
        client_secret: 'not-the-secret',
        code,
      });
      expect(legacy.status).toBe(401);
      expect((await exchangeCode(server, client, code)).status).toBe(200);
    });

    it("refuses another app's code to an authenticated client, as an invalid code", async () => {
      const other = await registerClient(server, { name: 'Other app' });
      const code = await obtainCode(user.browser, client);
      await expectOAuthError(await exchangeCode(server, other, code), 400, 'invalid_grant');
    });
  },
);
