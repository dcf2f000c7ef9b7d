/**
 * docs/interface.md#legacy-token-endpoint and docs/interface.md#legacy-user-information: the previous
 * system's interface, kept exactly: the JSON token exchange and the enveloped user information. The first
 * `describe` is a client written the way the old documentation shows it.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/domain/crypto.js';
import { credentialKey } from '../../src/oauth/credentials.js';
import { json } from '../helpers/http.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import {
  obtainCode,
  pkcePair,
  REDIRECT_URI,
  registerClient,
  signedInUser,
  tokensFor,
  legacyExchange,
} from './support.js';

interface Envelope<T = Record<string, unknown>> {
  code: number;
  msg: string;
  data: T;
}

const GET_USER_INFO = '/v1/oauth2/get-user-info';

describeOnDatabases('legacy interface', { transport: 'inject', client: true, user: 'admin' }, (fixture) => {
  const { server, client, user } = fixture;
  const { uin, browser } = user;

  const userInfo = (authorization?: string): Promise<Response> =>
    server.fetch(
      GET_USER_INFO,
      authorization === undefined ? {} : { headers: { Authorization: authorization } },
    );

  describe('a legacy client, exactly as the old docs show it', () => {
    it('goes from the page redirect to the user information with plain fetch', async () => {
      // 1. The app sends the browser to {base}/#/auth?client_id=…&redirect_uri=…&state=…; the page, after
      //    sign-in and Authorize, sends the browser back to redirect_uri?code=…&state=….
      const state = 'legacy-state-123';
      const { data } = await json<Envelope<{ redirect_to: string }>>(
        await browser.call('POST', '/v1/oauth2/authorize', {
          client_id: client.clientId,
          redirect_uri: REDIRECT_URI,
          state,
          decision: 'allow',
        }),
      );
      const callback = new URL(data.redirect_to);
      expect(callback.searchParams.get('state')).toBe(state);
      const code = callback.searchParams.get('code')!;

      // 2. The app's back end exchanges the code.
      const tokenResponse = await server.fetch(`/v1/oauth2/get-access-token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ client_id: client.clientId, client_secret: client.clientSecret, code }),
      });
      const tokenJson = (await tokenResponse.json()) as Envelope<{ access_token: string }>;
      expect(tokenJson.code).toBe(0);
      const accessToken = tokenJson.data.access_token;

      // 3. And asks who the user is.
      const infoResponse = await server.fetch(`/v1/oauth2/get-user-info`, {
        headers: { Authorization: `Bearer ${accessToken}` },
      });
      const info = (await infoResponse.json()) as Envelope<{
        uin: number;
        user_group: string;
        created_at: string;
      }>;
      expect(info.code).toBe(0);
      expect(info.data.uin).toBe(uin);
      expect(info.data.user_group).toBe('admin');
    });
  });

  describe('POST /v1/oauth2/get-access-token', () => {
    it('answers {"code":0,"msg":"ok","data":{"access_token":"…"}}', async () => {
      const code = await obtainCode(browser, client);
      const response = await legacyExchange(server, {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        code,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const body = await json<Envelope<{ access_token: string }>>(response);
      expect(body).toEqual({
        code: 0,
        msg: 'ok',
        data: { access_token: expect.stringMatching(/^[A-Za-z0-9_-]{51}$/) },
      });
    });

    it('needs no redirect_uri', async () => {
      const code = await obtainCode(browser, client);
      expect(
        (
          await legacyExchange(server, {
            client_id: client.clientId,
            client_secret: client.clientSecret,
            code,
          })
        ).status,
      ).toBe(200);
    });

    it('answers a missing field with 400 code 1 invalid_request', async () => {
      for (const body of [
        { client_secret: client.clientSecret, code: 'x' },
        { client_id: client.clientId, code: 'x' },
        { client_id: client.clientId, client_secret: client.clientSecret },
      ]) {
        const response = await legacyExchange(server, body);
        const answer = await json<Envelope>(response);
        expect({ status: response.status, code: answer.code, data: answer.data }).toEqual({
          status: 400,
          code: 1,
          data: {},
        });
        expect(answer.msg).toMatch(/^invalid_request: /);
      }
    });

    it('answers a field of the wrong type, or a body that is not a JSON object, with 400 code 1', async () => {
      for (const body of [
        { client_id: 1, client_secret: 'x', code: 'y' },
        '[]',
        '"text"',
        '{not json',
        'null',
      ]) {
        const response = await legacyExchange(server, body);
        const answer = await json<Envelope>(response);
        expect({ status: response.status, code: answer.code }).toEqual({ status: 400, code: 1 });
        expect(answer.msg).toMatch(/^invalid_request: /);
      }
    });

    it('answers bad client credentials with 401 code 2 invalid_client', async () => {
      const code = await obtainCode(browser, client);
      for (const body of [
        { client_id: client.clientId, client_secret: 'wrong', code },
        { client_id: 'AAAAAAAAAAAAAAAA', client_secret: client.clientSecret, code },
      ]) {
        const response = await legacyExchange(server, body);
        const answer = await json<Envelope>(response);
        expect({ status: response.status, code: answer.code, data: answer.data }).toEqual({
          status: 401,
          code: 2,
          data: {},
        });
        expect(answer.msg).toMatch(/^invalid_client: /);
      }
    });

    it('answers an unknown, reused or foreign code with 400 code 2 invalid_grant', async () => {
      const other = await registerClient(server);
      const foreign = await obtainCode(browser, other);
      const used = await obtainCode(browser, client);
      expect(
        (
          await legacyExchange(server, {
            client_id: client.clientId,
            client_secret: client.clientSecret,
            code: used,
          })
        ).status,
      ).toBe(200);
      for (const code of ['unknown', used, foreign]) {
        const response = await legacyExchange(server, {
          client_id: client.clientId,
          client_secret: client.clientSecret,
          code,
        });
        const answer = await json<Envelope>(response);
        expect({ status: response.status, code: answer.code, data: answer.data }).toEqual({
          status: 400,
          code: 2,
          data: {},
        });
        expect(answer.msg).toMatch(/^invalid_grant: /);
      }
    });

    it('answers an expired code with 400 code 2 invalid_grant', async () => {
      const code = await obtainCode(browser, client);
      const stored = await server.ctx.store.codes.find(credentialKey(code));
      await server.ctx.store.codes.insert({
        ...stored!,
        codeHash: credentialKey(`old-${code}`),
        expiresAt: Date.now() - 1,
      });
      const answer = await json<Envelope>(
        await legacyExchange(server, {
          client_id: client.clientId,
          client_secret: client.clientSecret,
          code: `old-${code}`,
        }),
      );
      expect(answer.code).toBe(2);
    });

    it('rejects a code used twice and revokes the token it issued', async () => {
      const code = await obtainCode(browser, client);
      const first = await json<Envelope<{ access_token: string }>>(
        await legacyExchange(server, {
          client_id: client.clientId,
          client_secret: client.clientSecret,
          code,
        }),
      );
      expect((await userInfo(`Bearer ${first.data.access_token}`)).status).toBe(200);
      expect(
        (
          await legacyExchange(server, {
            client_id: client.clientId,
            client_secret: client.clientSecret,
            code,
          })
        ).status,
      ).toBe(400);
      expect((await userInfo(`Bearer ${first.data.access_token}`)).status).toBe(401);
    });

    it('needs code_verifier for a code that carries a PKCE challenge', async () => {
      const { verifier, challenge } = pkcePair();
      const code = await obtainCode(browser, client, {
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      const without = await json<Envelope>(
        await legacyExchange(server, {
          client_id: client.clientId,
          client_secret: client.clientSecret,
          code,
        }),
      );
      expect(without.code).toBe(2);
      expect(without.msg).toMatch(/^invalid_grant: /);
      const withIt = await legacyExchange(server, {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        code,
        code_verifier: verifier,
      });
      expect(withIt.status).toBe(200);
    });

    it('issues only an access token, even for offline_access', async () => {
      const code = await obtainCode(browser, client, { scope: 'openid offline_access' });
      const body = await json<Envelope<Record<string, string>>>(
        await legacyExchange(server, {
          client_id: client.clientId,
          client_secret: client.clientSecret,
          code,
        }),
      );
      expect(Object.keys(body.data)).toEqual(['access_token']);
    });
  });

  describe('GET /v1/oauth2/get-user-info', () => {
    it('answers created_at, uin (an integer above 2^31) and user_group in the envelope', async () => {
      const { access_token } = await tokensFor(server, browser, client);
      const response = await userInfo(`Bearer ${access_token}`);
      expect(response.status).toBe(200);
      const text = await response.text();
      const user = await server.ctx.store.users.find(uin);
      expect(text).toBe(
        `{"code":0,"msg":"ok","data":{"created_at":"${new Date(user!.createdAt).toISOString()}","uin":${uin},"user_group":"admin"}}`,
      );
      expect(uin).toBeGreaterThan(2 ** 31);
    });

    it('answers a missing header with 401 and the bare Bearer challenge', async () => {
      const response = await userInfo();
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="campus-sso"');
      const body = await json<Envelope>(response);
      expect({ code: body.code, data: body.data }).toEqual({ code: -1, data: {} });
    });

    it('answers a malformed header with 401 and the bare Bearer challenge', async () => {
      for (const header of ['Basic abc', 'Bearer', 'Bearer a b', 'Bearer !!!', 'token']) {
        const response = await userInfo(header);
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer realm="campus-sso"');
      }
    });

    it('answers an unknown token with 401 error="invalid_token"', async () => {
      const response = await userInfo('Bearer unknown-token');
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        'Bearer realm="campus-sso", error="invalid_token"',
      );
      expect((await json<Envelope>(response)).code).toBe(-1);
    });

    it('accepts the scheme in any case (RFC 7235 §2.1)', async () => {
      const { access_token } = await tokensFor(server, browser, client);
      expect((await userInfo(`bearer ${access_token}`)).status).toBe(200);
    });

    it('stops answering when the token is revoked', async () => {
      const { access_token } = await tokensFor(server, browser, client);
      await server.ctx.store.tokens.revokeAccessToken(credentialKey(access_token));
      expect((await userInfo(`Bearer ${access_token}`)).status).toBe(401);
    });

    it('stops answering when the token expires', async () => {
      const { access_token } = await tokensFor(server, browser, client);
      const record = await server.ctx.store.tokens.findAccessToken(credentialKey(access_token));
      const expired = `${access_token}-expired`;
      const code = await obtainCode(browser, client);
      await server.ctx.store.tokens.redeemCode(
        credentialKey(code),
        Date.now(),
        {
          ...record!,
          tokenHash: credentialKey(expired),
          codeHash: credentialKey(code),
          expiresAt: Date.now() - 1,
        },
        undefined,
      );
      expect((await userInfo(`Bearer ${expired}`)).status).toBe(401);
    });

    it('keeps answering for a token issued before time-prefixed credentials (stored under its bare SHA-256)', async () => {
      const { access_token } = await tokensFor(server, browser, client);
      const record = await server.ctx.store.tokens.findAccessToken(credentialKey(access_token));
      const older = randomBytes(32).toString('base64url');
      const code = await obtainCode(browser, client);
      await server.ctx.store.tokens.redeemCode(
        credentialKey(code),
        Date.now(),
        { ...record!, tokenHash: sha256Hex(older), codeHash: credentialKey(code) },
        undefined,
      );
      expect(credentialKey(older)).toBe(sha256Hex(older));
      const response = await userInfo(`Bearer ${older}`);
      expect(response.status).toBe(200);
      expect((await json<Envelope>(response)).code).toBe(0);
    });

    it('stops answering when the user is disabled', async () => {
      const user = await signedInUser(server);
      const { access_token } = await tokensFor(server, user.browser, client);
      await server.ctx.users.setDisabled(user.uin, true);
      expect((await userInfo(`Bearer ${access_token}`)).status).toBe(401);
    });

    it('stops answering when the app is disabled, for good, or deleted', async () => {
      const app = await registerClient(server);
      const { access_token } = await tokensFor(server, browser, app);
      await server.ctx.apps.change(app.clientId, { disabled: true });
      expect((await userInfo(`Bearer ${access_token}`)).status).toBe(401);
      await server.ctx.apps.change(app.clientId, { disabled: false });
      expect((await userInfo(`Bearer ${access_token}`)).status).toBe(401);
      const { access_token: issuedAfter } = await tokensFor(server, browser, app);
      expect((await userInfo(`Bearer ${issuedAfter}`)).status).toBe(200);
      await server.ctx.store.apps.delete(app.clientId);
      expect((await userInfo(`Bearer ${issuedAfter}`)).status).toBe(401);
    });

    it('stops answering when the user withdraws consent', async () => {
      const { access_token } = await tokensFor(server, browser, client);
      expect((await browser.call('DELETE', `/v1/account/consents/${client.clientId}`)).status).toBe(200);
      expect((await userInfo(`Bearer ${access_token}`)).status).toBe(401);
    });
  });
});
