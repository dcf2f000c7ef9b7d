/**
 * The standard token endpoint (RFC 6749 §3.2), authorization-code and refresh-token grants:
 * docs/interface.md#token-endpoint and docs/interface.md#openid-connect.
 */
import { describe, expect, it } from 'vitest';
import { credentialKey } from '../../src/oauth/credentials.js';
import { json } from '../helpers/http.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import {
  basic,
  type Client,
  exchangeCode,
  expectOAuthError,
  getUserInfo,
  obtainCode,
  pkcePair,
  postForm,
  REDIRECT_URI,
  registerClient,
  signedInUser,
  type TokenBody,
  tokensFor,
} from './support.js';

const TOKEN = '/v1/oauth2/token';

describeOnDatabases(
  'POST /v1/oauth2/token',
  { transport: 'inject', client: true, user: 'member' },
  (fixture) => {
    const { server, client, user } = fixture;
    const { uin, browser } = user;

    describe('client authentication', () => {
      it('accepts client_secret_basic', async () => {
        const code = await obtainCode(browser, client);
        expect((await exchangeCode(server, client, code)).status).toBe(200);
      });

      it('accepts client_secret_post', async () => {
        const code = await obtainCode(browser, client);
        const response = await postForm(server, TOKEN, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          client_id: client.clientId,
          client_secret: client.clientSecret,
        });
        expect(response.status).toBe(200);
      });

      it('form-urldecodes the Basic credentials (RFC 6749 §2.3.1)', async () => {
        const code = await obtainCode(browser, client);
        // Every character percent-encoded: a client that encodes more than needed still works.
        const encodeAll = (value: string): string =>
          [...Buffer.from(value)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
        const header = `Basic ${Buffer.from(`${encodeAll(client.clientId)}:${encodeAll(client.clientSecret)}`).toString('base64')}`;
        const response = await postForm(
          server,
          TOKEN,
          { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI },
          header,
        );
        expect(response.status).toBe(200);
      });

      it('rejects both Basic and client_secret in the body with invalid_request', async () => {
        const code = await obtainCode(browser, client);
        const response = await postForm(
          server,
          TOKEN,
          {
            grant_type: 'authorization_code',
            code,
            redirect_uri: REDIRECT_URI,
            client_id: client.clientId,
            client_secret: client.clientSecret,
          },
          basic(client.clientId, client.clientSecret),
        );
        await expectOAuthError(response, 400, 'invalid_request');
      });

      it('rejects a request without client authentication with 401 invalid_client', async () => {
        const code = await obtainCode(browser, client);
        const response = await postForm(server, TOKEN, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          client_id: client.clientId,
        });
        await expectOAuthError(response, 401, 'invalid_client');
        expect(response.headers.get('www-authenticate')).toBeNull();
      });

      it('answers a wrong Basic secret with 401 invalid_client and WWW-Authenticate: Basic realm="campus-sso"', async () => {
        const code = await obtainCode(browser, client);
        const response = await postForm(
          server,
          TOKEN,
          { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI },
          basic(client.clientId, 'wrong'),
        );
        await expectOAuthError(response, 401, 'invalid_client');
        expect(response.headers.get('www-authenticate')).toBe('Basic realm="campus-sso"');
      });

      it('rejects a disabled client with invalid_client', async () => {
        const disabled = await registerClient(server);
        const code = await obtainCode(browser, disabled);
        await server.ctx.store.apps.update(disabled.clientId, { disabled: true });
        await expectOAuthError(await exchangeCode(server, disabled, code), 401, 'invalid_client');
      });
    });

    describe('request format', () => {
      it('answers unsupported_grant_type for an unknown grant', async () => {
        const response = await postForm(
          server,
          TOKEN,
          { grant_type: 'password' },
          basic(client.clientId, client.clientSecret),
        );
        await expectOAuthError(response, 400, 'unsupported_grant_type');
      });

      it('answers invalid_request when grant_type is missing or empty', async () => {
        for (const form of [{}, { grant_type: '' }] as Record<string, string>[]) {
          await expectOAuthError(
            await postForm(server, TOKEN, form, basic(client.clientId, client.clientSecret)),
            400,
            'invalid_request',
          );
        }
      });

      it('rejects a parameter sent twice with invalid_request (RFC 6749 §3.1)', async () => {
        const code = await obtainCode(browser, client);
        const response = await server.fetch(TOKEN, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: basic(client.clientId, client.clientSecret),
          },
          body: `grant_type=authorization_code&code=${code}&code=${code}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`,
        });
        await expectOAuthError(response, 400, 'invalid_request');
      });

      it('rejects a JSON body with invalid_request', async () => {
        const response = await server.fetch(TOKEN, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: basic(client.clientId, client.clientSecret),
          },
          body: JSON.stringify({ grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT_URI }),
        });
        await expectOAuthError(response, 400, 'invalid_request');
      });

      it('ignores unrecognized parameters (RFC 6749 §3.2)', async () => {
        const code = await obtainCode(browser, client);
        expect(
          (await exchangeCode(server, client, code, { resource: 'https://x.example', foo: 'bar' })).status,
        ).toBe(200);
      });
    });

    describe('grant_type=authorization_code', () => {
      it('answers access_token, token_type Bearer and expires_in, never cached', async () => {
        const code = await obtainCode(browser, client);
        const response = await exchangeCode(server, client, code);
        expect(response.status).toBe(200);
        expect(response.headers.get('cache-control')).toBe('no-store');
        expect(response.headers.get('pragma')).toBe('no-cache');
        const body = await json<TokenBody>(response);
        expect(Object.keys(body)).toEqual(['access_token', 'token_type', 'expires_in']);
        expect(body).toEqual({
          access_token: expect.stringMatching(/^[A-Za-z0-9_-]{51}$/),
          token_type: 'Bearer',
          expires_in: 7200,
        });
        expect((await getUserInfo(server, body.access_token)).status).toBe(200);
      });

      it('stores the access token only as its SHA-256', async () => {
        const body = await tokensFor(server, browser, client);
        expect(await server.ctx.store.tokens.findAccessToken(body.access_token)).toBeUndefined();
        expect(await server.ctx.store.tokens.findAccessToken(credentialKey(body.access_token))).toMatchObject(
          {
            clientId: client.clientId,
            uin,
          },
        );
      });

      it('rejects an unknown code with invalid_grant', async () => {
        await expectOAuthError(await exchangeCode(server, client, 'no-such-code'), 400, 'invalid_grant');
      });

      it('rejects a missing code with invalid_request', async () => {
        const response = await postForm(
          server,
          TOKEN,
          { grant_type: 'authorization_code', redirect_uri: REDIRECT_URI },
          basic(client.clientId, client.clientSecret),
        );
        await expectOAuthError(response, 400, 'invalid_request');
      });

      it('rejects a code used twice and revokes the tokens it issued', async () => {
        const code = await obtainCode(browser, client, { scope: 'openid offline_access' });
        const first = await json<TokenBody>(await exchangeCode(server, client, code));
        expect((await getUserInfo(server, first.access_token)).status).toBe(200);
        await expectOAuthError(await exchangeCode(server, client, code), 400, 'invalid_grant');
        expect((await getUserInfo(server, first.access_token)).status).toBe(401);
        const refresh = await postForm(
          server,
          TOKEN,
          { grant_type: 'refresh_token', refresh_token: first.refresh_token! },
          basic(client.clientId, client.clientSecret),
        );
        await expectOAuthError(refresh, 400, 'invalid_grant');
      });

      it('redeems a code exactly once under concurrent requests', async () => {
        const code = await obtainCode(browser, client);
        const responses = await Promise.all(
          Array.from({ length: 5 }, () => exchangeCode(server, client, code)),
        );
        const statuses = responses.map((r) => r.status).sort();
        expect(statuses.filter((s) => s === 200).length).toBe(1);
        expect(statuses.filter((s) => s === 400).length).toBeGreaterThanOrEqual(4);
      });

      it('rejects an expired code with invalid_grant', async () => {
        const code = await obtainCode(browser, client);
        const stored = await server.ctx.store.codes.find(credentialKey(code));
        // A second code row, identical but expired, stands in for the passing of ten minutes.
        const expiredCode = 'expired-' + code;
        await server.ctx.store.codes.insert({
          ...stored!,
          codeHash: credentialKey(expiredCode),
          expiresAt: Date.now() - 1,
        });
        await expectOAuthError(await exchangeCode(server, client, expiredCode), 400, 'invalid_grant');
      });

      it('rejects a code issued to another client with invalid_grant, and leaves it usable by its own', async () => {
        const other = await registerClient(server);
        const code = await obtainCode(browser, client);
        await expectOAuthError(await exchangeCode(server, other, code), 400, 'invalid_grant');
        expect((await exchangeCode(server, client, code)).status).toBe(200);
      });

      it('rejects a redirect_uri that differs from the authorization request (RFC 6749 §4.1.3)', async () => {
        const code = await obtainCode(browser, client);
        await expectOAuthError(
          await exchangeCode(server, client, code, { redirect_uri: `${REDIRECT_URI}/other` }),
          400,
          'invalid_grant',
        );
      });

      it('requires redirect_uri, since the authorization request carried one', async () => {
        const code = await obtainCode(browser, client);
        const response = await postForm(
          server,
          TOKEN,
          { grant_type: 'authorization_code', code },
          basic(client.clientId, client.clientSecret),
        );
        await expectOAuthError(response, 400, 'invalid_request');
      });

      it('accepts the right S256 code_verifier', async () => {
        const { verifier, challenge } = pkcePair();
        const code = await obtainCode(browser, client, {
          code_challenge: challenge,
          code_challenge_method: 'S256',
        });
        expect((await exchangeCode(server, client, code, { code_verifier: verifier })).status).toBe(200);
      });

      it('accepts the right plain code_verifier', async () => {
        const { verifier } = pkcePair();
        const code = await obtainCode(browser, client, {
          code_challenge: verifier,
          code_challenge_method: 'plain',
        });
        expect((await exchangeCode(server, client, code, { code_verifier: verifier })).status).toBe(200);
      });

      it('rejects a wrong code_verifier with invalid_grant', async () => {
        const { challenge } = pkcePair();
        const code = await obtainCode(browser, client, {
          code_challenge: challenge,
          code_challenge_method: 'S256',
        });
        await expectOAuthError(
          await exchangeCode(server, client, code, { code_verifier: pkcePair().verifier }),
          400,
          'invalid_grant',
        );
      });

      it('rejects a missing code_verifier when the code carries a challenge', async () => {
        const { challenge } = pkcePair();
        const code = await obtainCode(browser, client, {
          code_challenge: challenge,
          code_challenge_method: 'S256',
        });
        await expectOAuthError(await exchangeCode(server, client, code), 400, 'invalid_grant');
      });

      it('rejects a code_verifier for a code issued without a challenge (PKCE downgrade)', async () => {
        const code = await obtainCode(browser, client);
        await expectOAuthError(
          await exchangeCode(server, client, code, { code_verifier: pkcePair().verifier }),
          400,
          'invalid_grant',
        );
      });

      it('rejects an S256 challenge answered with the challenge itself (the plain downgrade)', async () => {
        const { challenge } = pkcePair();
        const code = await obtainCode(browser, client, {
          code_challenge: challenge,
          code_challenge_method: 'S256',
        });
        await expectOAuthError(
          await exchangeCode(server, client, code, { code_verifier: challenge }),
          400,
          'invalid_grant',
        );
      });

      it('echoes the scope when one was requested', async () => {
        const body = await tokensFor(server, browser, client, { scope: 'profile' });
        expect(body.scope).toBe('profile');
        expect(body.refresh_token).toBeUndefined();
        expect(body.id_token).toBeUndefined();
      });

      it('refuses tokens for a user disabled after authorizing', async () => {
        const user = await signedInUser(server);
        const code = await obtainCode(user.browser, client);
        await server.ctx.store.users.update(user.uin, { disabled: true });
        await expectOAuthError(await exchangeCode(server, client, code), 400, 'invalid_grant');
      });
    });

    describe('grant_type=refresh_token', () => {
      const refresh = (
        refreshToken: string,
        extra: Record<string, string> = {},
        who: Client = client,
      ): Promise<Response> =>
        postForm(
          server,
          TOKEN,
          { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra },
          basic(who.clientId, who.clientSecret),
        );

      it('issues a refresh token for offline_access', async () => {
        const body = await tokensFor(server, browser, client, { scope: 'offline_access' });
        expect(body.refresh_token).toMatch(/^[A-Za-z0-9_-]{51}$/);
        expect(body.scope).toBe('offline_access');
      });

      it('issues no refresh token when the app has them switched off', async () => {
        const strict = await registerClient(server);
        await server.ctx.store.apps.update(strict.clientId, { allowRefreshTokens: false });
        const body = await tokensFor(server, browser, strict, { scope: 'offline_access' });
        expect(body.refresh_token).toBeUndefined();
      });

      it('rotates the refresh token at every use', async () => {
        const first = await tokensFor(server, browser, client, { scope: 'offline_access' });
        const response = await refresh(first.refresh_token!);
        expect(response.status).toBe(200);
        expect(response.headers.get('cache-control')).toBe('no-store');
        const second = await json<TokenBody>(response);
        expect(second.refresh_token).toBeTruthy();
        expect(second.refresh_token).not.toBe(first.refresh_token);
        expect(second.access_token).not.toBe(first.access_token);
        expect((await getUserInfo(server, second.access_token)).status).toBe(200);
        expect((await refresh(second.refresh_token!)).status).toBe(200);
      });

      it('revokes the whole family when a rotated refresh token is used again', async () => {
        const first = await tokensFor(server, browser, client, { scope: 'offline_access' });
        const second = await json<TokenBody>(await refresh(first.refresh_token!));
        await expectOAuthError(await refresh(first.refresh_token!), 400, 'invalid_grant');
        expect((await getUserInfo(server, first.access_token)).status).toBe(401);
        expect((await getUserInfo(server, second.access_token)).status).toBe(401);
        await expectOAuthError(await refresh(second.refresh_token!), 400, 'invalid_grant');
      });

      it("rejects another client's refresh token with invalid_grant", async () => {
        const other = await registerClient(server);
        const first = await tokensFor(server, browser, client, { scope: 'offline_access' });
        await expectOAuthError(await refresh(first.refresh_token!, {}, other), 400, 'invalid_grant');
        expect((await refresh(first.refresh_token!)).status).toBe(200);
      });

      it('rejects an unknown or missing refresh token', async () => {
        await expectOAuthError(await refresh('nope'), 400, 'invalid_grant');
        await expectOAuthError(
          await postForm(
            server,
            TOKEN,
            { grant_type: 'refresh_token' },
            basic(client.clientId, client.clientSecret),
          ),
          400,
          'invalid_request',
        );
      });

      it('narrows the scope on request and refuses a wider one (RFC 6749 §6)', async () => {
        const first = await tokensFor(server, browser, client, { scope: 'openid offline_access' });
        await expectOAuthError(
          await refresh(first.refresh_token!, { scope: 'openid profile' }),
          400,
          'invalid_scope',
        );
        const narrowed = await json<TokenBody>(
          await refresh(first.refresh_token!, { scope: 'offline_access' }),
        );
        expect(narrowed.scope).toBe('offline_access');
        expect(narrowed.id_token).toBeUndefined();
      });

      it('refuses refresh with unauthorized_client once an admin switches refresh tokens off', async () => {
        const app = await registerClient(server);
        const first = await tokensFor(server, browser, app, { scope: 'offline_access' });
        await server.ctx.store.apps.update(app.clientId, { allowRefreshTokens: false });
        await expectOAuthError(await refresh(first.refresh_token!, {}, app), 400, 'unauthorized_client');
      });
    });
  },
);
