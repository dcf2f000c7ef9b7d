/**
 * docs/security.md#token-endpoint-and-grants: a code exchange that committed but whose answer the client
 * never got is retried by the client. The retry of the same exchange (same code, client, redirect_uri and PKCE
 * verifier) within 60 s answers the same tokens, still valid; anything else that presents the used code is a
 * replay (RFC 6749 §4.1.2): refused, and the tokens are revoked.
 */
import { expect, it } from 'vitest';
import { json } from '../helpers/http.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import {
  basic,
  exchangeCode,
  expectOAuthError,
  getUserInfo,
  obtainCode,
  pkcePair,
  postForm,
  registerClient,
  type TokenBody,
} from './support.js';

describeOnDatabases(
  'POST /v1/oauth2/token retried after a lost answer',
  { client: true, user: 'member', manualClock: true },
  ({ server, client, user, clock }) => {
    /** A code exchanged once, its answer "lost": what the server answered, for the test to compare. */
    async function exchangedOnce(extra: Record<string, string> = {}, authorize: Record<string, string> = {}) {
      const code = await obtainCode(user.browser, client, { scope: 'openid offline_access', ...authorize });
      const response = await exchangeCode(server, client, code, extra);
      expect(response.status).toBe(200);
      return { code, lost: await json<TokenBody>(response) };
    }

    function refresh(refreshToken: string): Promise<Response> {
      return postForm(
        server,
        '/v1/oauth2/token',
        { grant_type: 'refresh_token', refresh_token: refreshToken },
        basic(client.clientId, client.clientSecret),
      );
    }

    it('answers the same exchange retried within 60 s with the same tokens, which stay valid', async () => {
      const { code, lost } = await exchangedOnce();
      clock.advance(59_000);
      const retried = await exchangeCode(server, client, code);
      expect(retried.status).toBe(200);
      const again = await json<TokenBody>(retried);
      expect(again.access_token).toBe(lost.access_token);
      expect(again.refresh_token).toBe(lost.refresh_token);
      expect(again.id_token).toBe(lost.id_token);
      expect((await getUserInfo(server, again.access_token)).status).toBe(200);
      expect((await refresh(again.refresh_token ?? '')).status).toBe(200);
    });

    it('answers a retry with the same PKCE verifier, and revokes on one with another verifier', async () => {
      const pkce = pkcePair();
      const { code, lost } = await exchangedOnce(
        { code_verifier: pkce.verifier },
        { code_challenge: pkce.challenge, code_challenge_method: 'S256' },
      );
      const same = await exchangeCode(server, client, code, { code_verifier: pkce.verifier });
      expect((await json<TokenBody>(same)).access_token).toBe(lost.access_token);
      const other = await exchangeCode(server, client, code, { code_verifier: pkcePair().verifier });
      await expectOAuthError(other, 400, 'invalid_grant');
      expect((await getUserInfo(server, lost.access_token)).status).toBe(401);
    });

    it('revokes on a retry after 60 s', async () => {
      const { code, lost } = await exchangedOnce();
      clock.advance(61_000);
      await expectOAuthError(await exchangeCode(server, client, code), 400, 'invalid_grant');
      expect((await getUserInfo(server, lost.access_token)).status).toBe(401);
      await expectOAuthError(await refresh(lost.refresh_token ?? ''), 400, 'invalid_grant');
    });

    it('revokes on a retry with another redirect_uri', async () => {
      const { code, lost } = await exchangedOnce();
      const other = await exchangeCode(server, client, code, {
        redirect_uri: 'https://app.example.edu/other',
      });
      await expectOAuthError(other, 400, 'invalid_grant');
      expect((await getUserInfo(server, lost.access_token)).status).toBe(401);
    });

    it('revokes on a retry once the refresh token was used: the client did get the answer', async () => {
      const { code, lost } = await exchangedOnce();
      expect((await refresh(lost.refresh_token ?? '')).status).toBe(200);
      await expectOAuthError(await exchangeCode(server, client, code), 400, 'invalid_grant');
      expect((await getUserInfo(server, lost.access_token)).status).toBe(401);
    });

    it('gives another client nothing for the code', async () => {
      const { code } = await exchangedOnce();
      const other = await registerClient(server, { name: 'Other' });
      await expectOAuthError(await exchangeCode(server, other, code), 400, 'invalid_grant');
    });
  },
);
