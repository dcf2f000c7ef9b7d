/**
 * docs/security.md#token-endpoint-and-grants: a code used twice is refused and revokes its tokens (RFC 6749
 * §4.1.2; the OpenID conformance checks oidcc-codereuse and oidcc-codereuse-30seconds), unless this instance
 * knows the first answer was not delivered: then one retry of the same exchange (same code, client,
 * redirect_uri and PKCE verifier) within 60 s gets the same tokens, which work. Here the client drops its
 * connection right after sending the exchange; test/oauth/code-exchange-outage.test.ts cuts the database
 * right after the commit.
 */
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { credentialKey } from '../../src/oauth/credentials.js';
import { json } from '../helpers/http.js';
import { REDIRECT_URI, describeOnDatabases } from '../helpers/fixture.js';
import { waitFor } from '../helpers/wait.js';
import {
  basic,
  exchangeCode,
  expectOAuthError,
  getUserInfo,
  obtainCode,
  pkcePair,
  postForm,
  type TokenBody,
} from './support.js';

describeOnDatabases(
  'POST /v1/oauth2/token used again',
  { client: true, user: 'member', manualClock: true },
  ({ server, client, user, clock }) => {
    function refresh(refreshToken: string): Promise<Response> {
      return postForm(
        server,
        '/v1/oauth2/token',
        { grant_type: 'refresh_token', refresh_token: refreshToken },
        basic(client.clientId, client.clientSecret),
      );
    }

    /** Waits until the server has redeemed `code` (its row marked used); fails after 10 s. */
    async function untilUsed(code: string): Promise<void> {
      await waitFor(
        async () => {
          const found = await server.ctx.store.codes.findWithGrantor(credentialKey(code));
          return found?.code.usedAt !== null && found?.code.usedAt !== undefined;
        },
        { what: 'the exchange to be redeemed' },
      );
    }

    /**
     * Sends the exchange on a raw connection and closes it at once, before the server can answer: the
     * exchange commits, its answer is never delivered.
     */
    async function exchangeAndHangUp(code: string, extra: Record<string, string> = {}): Promise<void> {
      const body = new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        ...extra,
      }).toString();
      const { port } = new URL(server.baseUrl);
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      const request =
        `POST /v1/oauth2/token HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
        `Authorization: ${basic(client.clientId, client.clientSecret)}\r\n` +
        `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      await new Promise<void>((resolve, reject) =>
        socket.write(request, (error) => (error ? reject(error) : resolve())),
      );
      socket.destroy();
      await untilUsed(code);
    }

    it('refuses the same exchange sent again after its answer was delivered, and revokes (oidcc-codereuse)', async () => {
      const code = await obtainCode(user.browser, client, { scope: 'openid offline_access' });
      const first = await json<TokenBody>(await exchangeCode(server, client, code));
      expect((await getUserInfo(server, first.access_token)).status).toBe(200);
      await expectOAuthError(await exchangeCode(server, client, code), 400, 'invalid_grant');
      expect((await getUserInfo(server, first.access_token)).status).toBe(401);
      await expectOAuthError(await refresh(first.refresh_token ?? ''), 400, 'invalid_grant');
    });

    it('refuses it 30 s later too, and revokes (oidcc-codereuse-30seconds)', async () => {
      const code = await obtainCode(user.browser, client);
      const first = await json<TokenBody>(await exchangeCode(server, client, code));
      clock.advance(30_000);
      await expectOAuthError(await exchangeCode(server, client, code), 400, 'invalid_grant');
      expect((await getUserInfo(server, first.access_token)).status).toBe(401);
    });

    it('answers the retry of an exchange whose connection closed before the answer with the same tokens, once', async () => {
      const pkce = pkcePair();
      const code = await obtainCode(user.browser, client, {
        scope: 'openid offline_access',
        code_challenge: pkce.challenge,
        code_challenge_method: 'S256',
      });
      await exchangeAndHangUp(code, { code_verifier: pkce.verifier });
      clock.advance(59_000);
      const retried = await exchangeCode(server, client, code, { code_verifier: pkce.verifier });
      expect(retried.status).toBe(200);
      const tokens = await json<TokenBody>(retried);
      expect((await getUserInfo(server, tokens.access_token)).status).toBe(200);
      // The answer was delivered this time: a third use is a reuse, refused, and revokes.
      await expectOAuthError(
        await exchangeCode(server, client, code, { code_verifier: pkce.verifier }),
        400,
        'invalid_grant',
      );
      expect((await getUserInfo(server, tokens.access_token)).status).toBe(401);
      await expectOAuthError(await refresh(tokens.refresh_token ?? ''), 400, 'invalid_grant');
    });

    it('derives the same tokens for the retry as the undelivered exchange stored', async () => {
      const code = await obtainCode(user.browser, client, { scope: 'openid offline_access' });
      await exchangeAndHangUp(code);
      const retried = await json<TokenBody>(await exchangeCode(server, client, code));
      const stored = await server.ctx.store.tokens.findAccessToken(credentialKey(retried.access_token));
      expect(stored).toMatchObject({ codeHash: credentialKey(code), revoked: false });
      expect((await refresh(retried.refresh_token ?? '')).status).toBe(200);
    });

    it('refuses a retry after 60 s, or with another PKCE verifier or redirect_uri, and revokes', async () => {
      const pkce = pkcePair();
      const late = await obtainCode(user.browser, client);
      await exchangeAndHangUp(late);
      clock.advance(61_000);
      await expectOAuthError(await exchangeCode(server, client, late), 400, 'invalid_grant');

      const withPkce = { code_challenge: pkce.challenge, code_challenge_method: 'S256' };
      const otherVerifier = await obtainCode(user.browser, client, withPkce);
      await exchangeAndHangUp(otherVerifier, { code_verifier: pkce.verifier });
      const wrong = await exchangeCode(server, client, otherVerifier, { code_verifier: pkcePair().verifier });
      await expectOAuthError(wrong, 400, 'invalid_grant');
      // The undelivered record is spent, and the tokens are revoked: the right verifier gets nothing now.
      const right = await exchangeCode(server, client, otherVerifier, { code_verifier: pkce.verifier });
      await expectOAuthError(right, 400, 'invalid_grant');

      const otherUri = await obtainCode(user.browser, client);
      await exchangeAndHangUp(otherUri);
      const elsewhere = await exchangeCode(server, client, otherUri, {
        redirect_uri: 'https://app.example.edu/elsewhere',
      });
      await expectOAuthError(elsewhere, 400, 'invalid_grant');
      await expectOAuthError(await exchangeCode(server, client, otherUri), 400, 'invalid_grant');
    });
  },
);
