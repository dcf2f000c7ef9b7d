/**
 * Golden answers: the exact JSON (keys, key order, types, values), status and headers of every success and
 * error the OAuth endpoints give. Random values (tokens, times) are masked as `<string>` / `<number>`;
 * everything else must match byte for byte.
 */
import { describe, expect, it } from 'vitest';
import { authorizationServerMetadata } from '../../src/oauth/metadata.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import {
  basic,
  exchangeCode,
  getUserInfo,
  obtainCode,
  postForm,
  REDIRECT_URI,
  tokensFor,
  legacyExchange,
} from './support.js';

interface Golden {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const PINNED_HEADERS = ['content-type', 'cache-control', 'pragma', 'www-authenticate'];
const JSON_TYPE = 'application/json; charset=utf-8';
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** The answer with the named fields' values replaced by their JSON type, at any depth. */
async function golden(response: Response, masked: readonly string[] = []): Promise<Golden> {
  const headers: Record<string, string> = {};
  for (const name of PINNED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const text = await response.text();
  const mask = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(mask);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        masked.includes(key) ? `<${typeof inner}>` : mask(inner),
      ]),
    );
  };
  return {
    status: response.status,
    headers,
    body: text === '' ? '' : JSON.stringify(mask(JSON.parse(text))),
  };
}

describeOnDatabases('golden answers', { transport: 'inject', client: true, user: 'admin' }, (fixture) => {
  const { server, client, user } = fixture;
  const { uin, browser } = user;

  describe('POST /v1/oauth2/token', () => {
    it('success without scope', async () => {
      const code = await obtainCode(browser, client);
      expect(await golden(await exchangeCode(server, client, code), ['access_token'])).toEqual({
        status: 200,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE },
        body: '{"access_token":"<string>","token_type":"Bearer","expires_in":7200}',
      });
    });

    it('success with openid and offline_access', async () => {
      const code = await obtainCode(browser, client, { scope: 'openid offline_access' });
      expect(
        await golden(await exchangeCode(server, client, code), ['access_token', 'refresh_token', 'id_token']),
      ).toEqual({
        status: 200,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE },
        body:
          '{"access_token":"<string>","token_type":"Bearer","expires_in":7200,"refresh_token":"<string>",' +
          '"scope":"openid offline_access","id_token":"<string>"}',
      });
    });

    it('invalid_grant', async () => {
      expect(await golden(await exchangeCode(server, client, 'unknown'))).toEqual({
        status: 400,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE },
        body: '{"error":"invalid_grant","error_description":"the authorization code is invalid"}',
      });
    });

    it('invalid_client with Basic', async () => {
      const response = await postForm(
        server,
        '/v1/oauth2/token',
        { grant_type: 'authorization_code' },
        basic(client.clientId, 'x'),
      );
      expect(await golden(response)).toEqual({
        status: 401,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE, 'www-authenticate': 'Basic realm="campus-sso"' },
        body: '{"error":"invalid_client","error_description":"client authentication failed"}',
      });
    });

    it('invalid_client without credentials', async () => {
      const response = await postForm(server, '/v1/oauth2/token', { grant_type: 'authorization_code' });
      expect(await golden(response)).toEqual({
        status: 401,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE },
        body: '{"error":"invalid_client","error_description":"client authentication is required (HTTP Basic, or client_id and client_secret)"}',
      });
    });

    it('invalid_request for two authentication methods', async () => {
      const response = await postForm(
        server,
        '/v1/oauth2/token',
        { grant_type: 'authorization_code', client_secret: client.clientSecret },
        basic(client.clientId, client.clientSecret),
      );
      expect(await golden(response)).toEqual({
        status: 400,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE },
        body: '{"error":"invalid_request","error_description":"the client authenticated with both HTTP Basic and client_secret in the body; use one"}',
      });
    });

    it('unsupported_grant_type', async () => {
      const response = await postForm(
        server,
        '/v1/oauth2/token',
        { grant_type: 'password' },
        basic(client.clientId, client.clientSecret),
      );
      expect(await golden(response)).toEqual({
        status: 400,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE },
        // RFC 6749 §5.2: error_description may not carry `"` (docs/security.md); the words are unchanged.
        body: `{"error":"unsupported_grant_type","error_description":"grant_type 'password' is not supported"}`,
      });
    });

    it('invalid_request for a repeated parameter', async () => {
      const response = await server.fetch(`/v1/oauth2/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basic(client.clientId, client.clientSecret),
        },
        body: 'grant_type=authorization_code&code=a&code=b',
      });
      expect(await golden(response)).toEqual({
        status: 400,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE },
        body: '{"error":"invalid_request","error_description":"code must be string"}',
      });
    });
  });

  describe('POST /v1/oauth2/get-access-token', () => {
    it('success', async () => {
      const code = await obtainCode(browser, client);
      const response = await legacyExchange(server, {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        code,
      });
      expect(await golden(response, ['access_token'])).toEqual({
        status: 200,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE },
        body: '{"code":0,"msg":"ok","data":{"access_token":"<string>"}}',
      });
    });

    it('invalid_request', async () => {
      const response = await legacyExchange(server, {
        client_id: client.clientId,
        client_secret: client.clientSecret,
      });
      expect(await golden(response)).toEqual({
        status: 400,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE },
        body: '{"code":1,"msg":"invalid_request: code is required","data":{}}',
      });
    });

    it('invalid_request for a wrong type', async () => {
      const response = await legacyExchange(server, {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        code: 7,
      });
      expect(await golden(response)).toEqual({
        status: 400,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE },
        body: '{"code":1,"msg":"invalid_request: code must be string","data":{}}',
      });
    });

    it('invalid_client', async () => {
      const response = await legacyExchange(server, {
        client_id: client.clientId,
        client_secret: 'wrong',
        code: 'x',
      });
      expect(await golden(response)).toEqual({
        status: 401,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE },
        body: '{"code":2,"msg":"invalid_client: client authentication failed","data":{}}',
      });
    });

    it('invalid_grant', async () => {
      const response = await legacyExchange(server, {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        code: 'x',
      });
      expect(await golden(response)).toEqual({
        status: 400,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE },
        body: '{"code":2,"msg":"invalid_grant: the authorization code is invalid","data":{}}',
      });
    });
  });

  describe('GET /v1/oauth2/get-user-info', () => {
    it('success', async () => {
      const { access_token } = await tokensFor(server, browser, client);
      const response = await getUserInfo(server, access_token);
      expect(await golden(response, ['created_at'])).toEqual({
        status: 200,
        headers: { 'content-type': JSON_TYPE },
        body: `{"code":0,"msg":"ok","data":{"created_at":"<string>","uin":${uin},"user_group":"admin"}}`,
      });
    });

    it('missing header', async () => {
      expect(await golden(await server.fetch(`/v1/oauth2/get-user-info`))).toEqual({
        status: 401,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE, 'www-authenticate': 'Bearer realm="campus-sso"' },
        body: '{"code":-1,"msg":"the Authorization: Bearer header is missing","data":{}}',
      });
    });

    it('invalid token', async () => {
      expect(await golden(await getUserInfo(server, 'unknown'))).toEqual({
        status: 401,
        headers: {
          'content-type': JSON_TYPE,
          ...NO_STORE,
          'www-authenticate': 'Bearer realm="campus-sso", error="invalid_token"',
        },
        body: '{"code":-1,"msg":"the access token is invalid, expired or revoked","data":{}}',
      });
    });
  });

  describe('GET|POST /v1/oauth2/userinfo', () => {
    it('success', async () => {
      const { access_token } = await tokensFor(server, browser, client, { scope: 'openid' });
      const response = await server.fetch(`/v1/oauth2/userinfo`, {
        headers: { authorization: `Bearer ${access_token}` },
      });
      expect(await golden(response, ['created_at'])).toEqual({
        status: 200,
        headers: { 'content-type': JSON_TYPE },
        body: `{"sub":"${uin}","uin":${uin},"user_group":"admin","created_at":"<string>"}`,
      });
    });

    it('invalid_token', async () => {
      const response = await server.fetch(`/v1/oauth2/userinfo`, {
        headers: { authorization: 'Bearer nope' },
      });
      expect(await golden(response)).toEqual({
        status: 401,
        headers: {
          'content-type': JSON_TYPE,
          ...NO_STORE,
          'www-authenticate': 'Bearer realm="campus-sso", error="invalid_token"',
        },
        body: '{"error":"invalid_token","error_description":"the access token is invalid, expired or revoked"}',
      });
    });
  });

  describe('GET /v1/oauth2/app-info', () => {
    it('success', async () => {
      const response = await server.fetch(
        `/v1/oauth2/app-info?client_id=${client.clientId}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`,
      );
      expect(await golden(response)).toEqual({
        status: 200,
        headers: { 'content-type': JSON_TYPE },
        body: `{"code":0,"msg":"ok","data":{"client_id":"${client.clientId}","name":"Library","emoji":"📚","consented":false,"shared_computer":false}}`,
      });
    });

    it('unknown client', async () => {
      const response = await server.fetch(`/v1/oauth2/app-info?client_id=nope&redirect_uri=x`);
      expect(await golden(response)).toEqual({
        status: 400,
        headers: { 'content-type': JSON_TYPE },
        body: '{"code":3,"msg":"unknown or disabled client","data":{"reason":"unknown_client"}}',
      });
    });
  });

  describe('POST /v1/oauth2/authorize', () => {
    it('success', async () => {
      const response = await browser.call('POST', '/v1/oauth2/authorize', {
        client_id: client.clientId,
        redirect_uri: REDIRECT_URI,
        state: 's',
        decision: 'allow',
      });
      const answer = await golden(response);
      const iss = encodeURIComponent(server.baseUrl).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      expect(answer.body).toMatch(
        new RegExp(
          `^\\{"code":0,"msg":"ok","data":\\{"redirect_to":"https://app\\.example\\.edu/callback\\?code=[A-Za-z0-9_-]{51}&state=s&iss=${iss}"\\}\\}$`,
        ),
      );
      expect({ ...answer, body: '' }).toEqual({
        status: 200,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE },
        body: '',
      });
    });

    it('deny', async () => {
      const response = await browser.call('POST', '/v1/oauth2/authorize', {
        client_id: client.clientId,
        redirect_uri: REDIRECT_URI,
        state: 's',
        decision: 'deny',
      });
      expect(await golden(response)).toEqual({
        status: 200,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE },
        body: `{"code":0,"msg":"ok","data":{"redirect_to":"https://app.example.edu/callback?error=access_denied&error_description=the+user+denied+the+request&state=s&iss=${encodeURIComponent(server.baseUrl)}"}}`,
      });
    });

    it('unregistered redirect URI', async () => {
      const response = await browser.call('POST', '/v1/oauth2/authorize', {
        client_id: client.clientId,
        redirect_uri: 'https://evil.example/',
        decision: 'allow',
      });
      expect(await golden(response)).toEqual({
        status: 400,
        headers: { 'content-type': JSON_TYPE },
        body: '{"code":3,"msg":"redirect_uri is not registered for this app","data":{"reason":"unregistered_redirect_uri","name":"Library"}}',
      });
    });
  });

  describe('POST /v1/oauth2/revoke and /v1/oauth2/introspect', () => {
    it('revoke success', async () => {
      const response = await postForm(
        server,
        '/v1/oauth2/revoke',
        { token: 'x' },
        basic(client.clientId, client.clientSecret),
      );
      expect(await golden(response)).toEqual({ status: 200, headers: NO_STORE, body: '' });
    });

    it('introspect inactive', async () => {
      const response = await postForm(
        server,
        '/v1/oauth2/introspect',
        { token: 'x' },
        basic(client.clientId, client.clientSecret),
      );
      expect(await golden(response)).toEqual({
        status: 200,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE },
        body: '{"active":false}',
      });
    });

    it('introspect active', async () => {
      const { access_token } = await tokensFor(server, browser, client);
      const response = await postForm(
        server,
        '/v1/oauth2/introspect',
        { token: access_token },
        basic(client.clientId, client.clientSecret),
      );
      expect(await golden(response, ['exp', 'iat'])).toEqual({
        status: 200,
        headers: { 'content-type': JSON_TYPE, ...NO_STORE },
        body: `{"active":true,"client_id":"${client.clientId}","token_type":"Bearer","exp":"<number>","iat":"<number>","sub":"${uin}","uin":${uin},"user_group":"admin"}`,
      });
    });
  });

  describe('GET /.well-known/oauth-authorization-server', () => {
    it('the whole document', async () => {
      const response = await server.fetch(`/.well-known/oauth-authorization-server`);
      const answer = await golden(response);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe(JSON_TYPE);
      expect(answer.body).toBe(JSON.stringify(authorizationServerMetadata(server.config)));
      expect(JSON.parse(answer.body)).toEqual({
        issuer: server.baseUrl,
        authorization_endpoint: `${server.baseUrl}/v1/oauth2/authorize`,
        token_endpoint: `${server.baseUrl}/v1/oauth2/token`,
        userinfo_endpoint: `${server.baseUrl}/v1/oauth2/userinfo`,
        jwks_uri: `${server.baseUrl}/.well-known/jwks.json`,
        revocation_endpoint: `${server.baseUrl}/v1/oauth2/revoke`,
        introspection_endpoint: `${server.baseUrl}/v1/oauth2/introspect`,
        device_authorization_endpoint: `${server.baseUrl}/v1/oauth2/device_authorization`,
        end_session_endpoint: `${server.baseUrl}/v1/oauth2/logout`,
        backchannel_logout_supported: true,
        backchannel_logout_session_supported: true,
        scopes_supported: ['openid', 'profile', 'email', 'groups', 'offline_access'],
        response_types_supported: ['code'],
        response_modes_supported: ['query', 'form_post'],
        grant_types_supported: [
          'authorization_code',
          'refresh_token',
          'urn:ietf:params:oauth:grant-type:device_code',
          'client_credentials',
        ],
        code_challenge_methods_supported: ['S256', 'plain'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256', 'ES256'],
        claims_supported: [
          'iss',
          'sub',
          'aud',
          'exp',
          'iat',
          'auth_time',
          'nonce',
          'at_hash',
          'uin',
          'user_group',
          'created_at',
          'name',
          'preferred_username',
          'email',
          'email_verified',
          'groups',
          'sid',
        ],
        prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
        request_parameter_supported: false,
        request_uri_parameter_supported: false,
        authorization_response_iss_parameter_supported: true,
      });
    });
  });
});
