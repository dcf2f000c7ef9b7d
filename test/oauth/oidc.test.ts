/**
 * docs/interface.md#openid-connect: discovery (RFC 8414 / OIDC Discovery), the JWKS, id_tokens and the
 * UserInfo endpoint — checked by a real third-party client library (oauth4webapi) as well as by hand.
 */
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { accessTokenHash } from '../../src/oauth/id-token.js';
import { json } from '../helpers/http.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import { startTestServer } from '../helpers/server.js';
import { expectOAuthError, getUserInfo, postForm, REDIRECT_URI, tokensFor } from './support.js';

describeOnDatabases('OpenID Connect', { client: true, user: 'member' }, (fixture) => {
  const { database, server, client, user } = fixture;
  const { uin, browser } = user;

  describe('a third-party client (oauth4webapi)', () => {
    it('completes discovery, PKCE S256, client_secret_basic, id_token validation, userinfo and refresh', async () => {
      const insecure = { [oauth.allowInsecureRequests]: true };
      const issuer = new URL(server.baseUrl);
      const as = await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oidc' }),
      );
      const oauthClient: oauth.Client = { client_id: client.clientId };
      const clientAuth = oauth.ClientSecretBasic(client.clientSecret);

      const verifier = oauth.generateRandomCodeVerifier();
      const challenge = await oauth.calculatePKCECodeChallenge(verifier);
      const state = oauth.generateRandomState();
      const nonce = oauth.generateRandomNonce();

      // The browser leg: the authorization endpoint sends it to the page; the page's call answers the callback.
      const authorizationUrl = new URL(as.authorization_endpoint!);
      const params = {
        client_id: client.clientId,
        redirect_uri: REDIRECT_URI,
        response_type: 'code',
        scope: 'openid profile offline_access',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state,
        nonce,
      };
      for (const [key, value] of Object.entries(params)) authorizationUrl.searchParams.set(key, value);
      const hop = await server.fetch(authorizationUrl, { redirect: 'manual' });
      expect(hop.status).toBe(302);
      const pageQuery = new URLSearchParams(hop.headers.get('location')!.split('#/auth?')[1]);
      const decision = await browser.call('POST', '/v1/oauth2/authorize', {
        ...Object.fromEntries(pageQuery),
        decision: 'allow',
      });
      const callback = new URL((await json<{ data: { redirect_to: string } }>(decision)).data.redirect_to);

      const callbackParams = oauth.validateAuthResponse(as, oauthClient, callback, state);
      const tokenResponse = await oauth.authorizationCodeGrantRequest(
        as,
        oauthClient,
        clientAuth,
        callbackParams,
        REDIRECT_URI,
        verifier,
        insecure,
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, oauthClient, tokenResponse, {
        expectedNonce: nonce,
        requireIdToken: true,
      });
      expect(tokens.token_type).toBe('bearer');
      expect(tokens.refresh_token).toBeTruthy();
      const claims = oauth.getValidatedIdTokenClaims(tokens)!;
      expect(claims).toMatchObject({
        iss: server.baseUrl,
        sub: String(uin),
        aud: client.clientId,
        nonce,
        uin,
        user_group: 'member',
      });

      // Signature, with the published keys.
      const jwks = createRemoteJWKSet(new URL(as.jwks_uri!));
      const { payload } = await jwtVerify(tokens.id_token!, jwks, {
        issuer: server.baseUrl,
        audience: client.clientId,
      });
      expect(payload.at_hash).toBe(accessTokenHash(tokens.access_token));

      const userInfoResponse = await oauth.userInfoRequest(as, oauthClient, tokens.access_token, insecure);
      const userInfo = await oauth.processUserInfoResponse(as, oauthClient, String(uin), userInfoResponse);
      expect(userInfo).toMatchObject({ sub: String(uin), uin, user_group: 'member' });

      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        oauthClient,
        await oauth.refreshTokenGrantRequest(as, oauthClient, clientAuth, tokens.refresh_token!, insecure),
      );
      expect(refreshed.access_token).not.toBe(tokens.access_token);
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

      const introspection = await oauth.processIntrospectionResponse(
        as,
        oauthClient,
        await oauth.introspectionRequest(as, oauthClient, clientAuth, refreshed.access_token, insecure),
      );
      expect(introspection).toMatchObject({ active: true, client_id: client.clientId, sub: String(uin) });

      await oauth.processRevocationResponse(
        await oauth.revocationRequest(as, oauthClient, clientAuth, refreshed.refresh_token!, insecure),
      );
      const after = await oauth.processIntrospectionResponse(
        as,
        oauthClient,
        await oauth.introspectionRequest(as, oauthClient, clientAuth, refreshed.access_token, insecure),
      );
      expect(after.active).toBe(false);
    });
  });

  describe('GET /.well-known/oauth-authorization-server and /.well-known/openid-configuration', () => {
    it('publishes RFC 8414 metadata with the issuer and every endpoint', async () => {
      const response = await server.fetch(`/.well-known/oauth-authorization-server`);
      expect(response.status).toBe(200);
      const metadata = await json(response);
      expect(metadata).toMatchObject({
        issuer: server.baseUrl,
        authorization_endpoint: `${server.baseUrl}/v1/oauth2/authorize`,
        token_endpoint: `${server.baseUrl}/v1/oauth2/token`,
        userinfo_endpoint: `${server.baseUrl}/v1/oauth2/userinfo`,
        jwks_uri: `${server.baseUrl}/.well-known/jwks.json`,
        revocation_endpoint: `${server.baseUrl}/v1/oauth2/revoke`,
        introspection_endpoint: `${server.baseUrl}/v1/oauth2/introspect`,
        device_authorization_endpoint: `${server.baseUrl}/v1/oauth2/device_authorization`,
        response_types_supported: ['code'],
        grant_types_supported: [
          'authorization_code',
          'refresh_token',
          'urn:ietf:params:oauth:grant-type:device_code',
          'client_credentials',
        ],
        code_challenge_methods_supported: ['S256', 'plain'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        scopes_supported: ['openid', 'profile', 'email', 'groups', 'offline_access'],
        subject_types_supported: ['public'],
        // OIDC Discovery §3: RS256 MUST be listed.
        id_token_signing_alg_values_supported: ['RS256', 'ES256'],
      });
    });

    it('serves the same document as OpenID Connect Discovery', async () => {
      const a = await json(await server.fetch(`/.well-known/oauth-authorization-server`));
      const b = await json(await server.fetch(`/.well-known/openid-configuration`));
      expect(b).toEqual(a);
    });
  });

  describe('GET /.well-known/jwks.json', () => {
    it('publishes an RS256 and an ES256 public key, without private parts', async () => {
      const { keys } = await json<{ keys: Record<string, string>[] }>(
        await server.fetch(`/.well-known/jwks.json`),
      );
      expect(keys).toHaveLength(2);
      expect(keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) });
      expect(keys[1]).toMatchObject({
        kty: 'EC',
        crv: 'P-256',
        alg: 'ES256',
        use: 'sig',
        kid: expect.any(String),
      });
      for (const key of keys) {
        for (const part of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key).not.toHaveProperty(part);
      }
    });

    it('shares the key through the database: a second instance signs with the same kid', async () => {
      const second = await startTestServer({ database, databaseUrl: server.databaseUrl });
      try {
        const first = await json<{ keys: { kid: string }[] }>(await server.fetch(`/.well-known/jwks.json`));
        const other = await json<{ keys: { kid: string }[] }>(await second.fetch(`/.well-known/jwks.json`));
        expect(other.keys.map((k) => k.kid)).toEqual(first.keys.map((k) => k.kid));
      } finally {
        await second.close();
      }
    });
  });

  describe('id_token', () => {
    it('carries iss, sub, aud, exp, iat, auth_time, nonce, at_hash, amr, sid, uin and user_group, signed RS256', async () => {
      const tokens = await tokensFor(server, browser, client, { scope: 'openid', nonce: 'n-0S6_WzA2Mj' });
      const jwks = createRemoteJWKSet(new URL(`${server.baseUrl}/.well-known/jwks.json`));
      const { payload, protectedHeader } = await jwtVerify(tokens.id_token!, jwks);
      // OIDC Core §15.1: RS256, which relying parties accept by default (go-oidc expects only RS256).
      expect(protectedHeader).toMatchObject({ alg: 'RS256', kid: expect.any(String) });
      expect(Object.keys(payload).sort()).toEqual(
        [
          'amr',
          'at_hash',
          'aud',
          'auth_time',
          'exp',
          'iat',
          'iss',
          'nonce',
          'sid',
          'sub',
          'uin',
          'user_group',
        ].sort(),
      );
      expect(payload).toMatchObject({
        iss: server.baseUrl,
        sub: String(uin),
        aud: client.clientId,
        nonce: 'n-0S6_WzA2Mj',
        at_hash: accessTokenHash(tokens.access_token),
        // RFC 8176: signed in with a password alone.
        amr: ['pwd'],
        uin,
        user_group: 'member',
      });
      expect(payload.exp! - payload.iat!).toBe(7200);
      expect(Number.isInteger(payload.auth_time)).toBe(true);
      expect(payload.auth_time as number).toBeLessThanOrEqual(payload.iat!);
    });

    it('has no nonce claim when the request had none', async () => {
      const tokens = await tokensFor(server, browser, client, { scope: 'openid' });
      const { payload } = await jwtVerify(
        tokens.id_token!,
        createRemoteJWKSet(new URL(`${server.baseUrl}/.well-known/jwks.json`)),
      );
      expect(payload).not.toHaveProperty('nonce');
      expect(decodeProtectedHeader(tokens.id_token!).typ).toBe('JWT');
    });

    it('is not issued without the openid scope', async () => {
      expect((await tokensFor(server, browser, client)).id_token).toBeUndefined();
    });
  });

  describe('GET|POST /v1/oauth2/userinfo', () => {
    it('answers {"sub","uin","user_group","created_at"} as plain JSON, by GET and POST', async () => {
      const { access_token } = await tokensFor(server, browser, client, { scope: 'openid' });
      const user = await server.ctx.store.users.find(uin);
      const expected = `{"sub":"${uin}","uin":${uin},"user_group":"member","created_at":"${new Date(user!.createdAt).toISOString()}"}`;
      for (const method of ['GET', 'POST']) {
        const response = await server.fetch(`/v1/oauth2/userinfo`, {
          method,
          headers: { authorization: `Bearer ${access_token}` },
        });
        expect(response.status).toBe(200);
        expect(await response.text()).toBe(expected);
      }
    });

    it('answers RFC 6750 errors: 401 with a Bearer challenge', async () => {
      const missing = await server.fetch(`/v1/oauth2/userinfo`);
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="campus-sso"');
      const invalid = await server.fetch(`/v1/oauth2/userinfo`, {
        headers: { authorization: 'Bearer nope' },
      });
      await expectOAuthError(invalid, 401, 'invalid_token');
      expect(invalid.headers.get('www-authenticate')).toBe(
        'Bearer realm="campus-sso", error="invalid_token"',
      );
    });

    it('answers a token issued without scope openid 403 insufficient_scope (get-user-info still answers it)', async () => {
      const { access_token } = await tokensFor(server, browser, client);
      for (const method of ['GET', 'POST']) {
        const response = await server.fetch(`/v1/oauth2/userinfo`, {
          method,
          headers: { authorization: `Bearer ${access_token}` },
        });
        await expectOAuthError(response, 403, 'insufficient_scope');
        expect(response.headers.get('www-authenticate')).toBe(
          'Bearer realm="campus-sso", error="insufficient_scope"',
        );
      }
      expect((await getUserInfo(server, access_token)).status).toBe(200);
    });

    it('takes the token as the access_token form parameter of a POST (RFC 6750 §2.2)', async () => {
      const { access_token } = await tokensFor(server, browser, client, { scope: 'openid' });
      const response = await postForm(server, '/v1/oauth2/userinfo', { access_token });
      expect(response.status).toBe(200);
      expect(await json(response)).toMatchObject({ sub: String(uin), uin });
    });

    it('refuses a token sent both in the header and in the body with 400 invalid_request (RFC 6750 §2)', async () => {
      const { access_token } = await tokensFor(server, browser, client, { scope: 'openid' });
      const response = await postForm(
        server,
        '/v1/oauth2/userinfo',
        { access_token },
        `Bearer ${access_token}`,
      );
      await expectOAuthError(response, 400, 'invalid_request');
    });
  });
});
