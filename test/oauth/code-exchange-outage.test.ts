/**
 * docs/security.md#token-endpoint-and-grants: a code exchange whose commit the server never heard about (the
 * database connection cut right after PostgreSQL committed it) answers 503 with Retry-After; the client's
 * retry once the database is back gets 200 and the tokens that commit stored, which work. A second retry,
 * its answer delivered, is a reuse: refused, and revokes (RFC 6749 §4.1.2).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { credentialKey } from '../../src/oauth/credentials.js';
import { type Client, registerClient, signedInUser } from '../helpers/fixture.js';
import { describeEachDatabase } from '../helpers/fixture.js';
import type { Browser } from '../helpers/http.js';
import { json } from '../helpers/http.js';
import {
  TEST_DATABASE_URL,
  type TestServer,
  freshPostgresSchema,
  startTestServer,
} from '../helpers/server.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { exchangeCode, expectOAuthError, getUserInfo, obtainCode, type TokenBody } from './support.js';

/** The statement that marks a code used and stores its tokens (src/storage/tokens.ts). */
const REDEEM_STATEMENT = 'campus_sso_redeem_codes';

describeEachDatabase(
  'POST /v1/oauth2/token when the database connection breaks right after the commit',
  () => {
    let schema: { url: string; drop: () => Promise<void> };
    let proxy: TcpProxy;
    let server: TestServer;
    let client: Client;
    let browser: Browser;

    beforeAll(async () => {
      schema = await freshPostgresSchema();
      const target = new URL(TEST_DATABASE_URL);
      proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
      server = await startTestServer({
        transport: 'inject',
        database: 'postgres',
        databaseUrl: proxy.route(schema.url),
      });
      client = await registerClient(server);
      ({ browser } = await signedInUser(server));
    }, 60_000);

    afterAll(async () => {
      proxy?.restore();
      await server?.close();
      await proxy?.close();
      await schema?.drop();
    });

    it('answers 503, and the retry once the database is back gets the committed tokens, once', async () => {
      const code = await obtainCode(browser, client, { scope: 'openid offline_access' });
      const cut = proxy.cutAfter(REDEEM_STATEMENT);
      const failed = await exchangeCode(server, client, code);
      await cut;
      await expectOAuthError(failed, 503, 'temporarily_unavailable');
      expect(failed.headers.get('retry-after')).toMatch(/^\d+$/);
      proxy.restore();

      // The commit did happen: the code is used, though the client got no tokens.
      const stored = await server.ctx.store.codes.findWithGrantor(credentialKey(code));
      expect(stored?.code.usedAt).not.toBeNull();

      const retried = await exchangeCode(server, client, code);
      expect(retried.status).toBe(200);
      const tokens = await json<TokenBody>(retried);
      // The tokens the lost commit stored (derived from the code), not new ones.
      const access = await server.ctx.store.tokens.findAccessToken(credentialKey(tokens.access_token));
      expect(access).toMatchObject({
        codeHash: credentialKey(code),
        revoked: false,
        createdAt: stored?.code.usedAt,
      });
      expect((await getUserInfo(server, tokens.access_token)).status).toBe(200);

      // That answer was delivered: one more use is a reuse.
      await expectOAuthError(await exchangeCode(server, client, code), 400, 'invalid_grant');
      expect((await getUserInfo(server, tokens.access_token)).status).toBe(401);
    });
  },
  ['postgres'],
);
