/**
 * docs/interface.md#service-accounts-client-credentials: the client_credentials grant (RFC 6749 §4.4), the
 * app fields that switch it on, and its userless tokens at every endpoint that reads tokens.
 */
import { describe, expect, it } from 'vitest';
import { credentialKey } from '../../src/oauth/credentials.js';
import { findServicePrincipal } from '../../src/oauth/service-tokens.js';
import { json } from '../helpers/http.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import {
  type Client,
  type TokenBody,
  basic,
  expectOAuthError,
  getUserInfo,
  postForm,
  registerClient,
  tokensFor,
} from './support.js';

const TOKEN = '/v1/oauth2/token';
const REVOKE = '/v1/oauth2/revoke';
const INTROSPECT = '/v1/oauth2/introspect';
const SCOPES = ['admin:users:read', 'admin:users:write'];

interface AppAnswer {
  code: number;
  msg: string;
  data: { app: Record<string, unknown>; client_secret?: string };
}

describeOnDatabases('the client_credentials grant', { client: true, user: 'admin' }, (fixture) => {
  const { server, user } = fixture;
  const admin = user.browser;

  const as = (who: Client): string => basic(who.clientId, who.clientSecret);
  const serviceApp = (allowedScopes: readonly string[] = SCOPES): Promise<Client> =>
    registerClient(server, { name: 'Roster sync', clientCredentials: true, allowedScopes });
  const requestToken = (who: Client, form: Record<string, string> = {}): Promise<Response> =>
    postForm(server, TOKEN, { grant_type: 'client_credentials', ...form }, as(who));
  async function serviceToken(who: Client, scope?: string): Promise<TokenBody> {
    const response = await requestToken(who, scope === undefined ? {} : { scope });
    expect(response.status).toBe(200);
    return json<TokenBody>(response);
  }
  const introspect = async (who: Client, token: string): Promise<Record<string, unknown>> =>
    json(await postForm(server, INTROSPECT, { token }, as(who)));

  describe('POST /v1/oauth2/token grant_type=client_credentials', () => {
    it('issues an access token with the requested scope, no refresh token and no id_token, not cached', async () => {
      const app = await serviceApp();
      const response = await requestToken(app, { scope: 'admin:users:read' });
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const body = await json<TokenBody>(response);
      expect(body).toEqual({
        access_token: expect.stringMatching(/^[A-Za-z0-9_-]{51}$/) as unknown,
        token_type: 'Bearer',
        expires_in: server.config.accessTokenTtl,
        scope: 'admin:users:read',
      });
    });

    it('accepts client_secret_post as well as HTTP Basic', async () => {
      const app = await serviceApp();
      const response = await postForm(server, TOKEN, {
        grant_type: 'client_credentials',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        scope: 'admin:users:write',
      });
      expect(response.status).toBe(200);
      expect((await json<TokenBody>(response)).scope).toBe('admin:users:write');
    });

    it('grants every allowed scope when the request names none (RFC 6749 section 3.3 default)', async () => {
      const app = await serviceApp();
      expect((await serviceToken(app)).scope).toBe(SCOPES.join(' '));
    });

    it('refuses a scope outside allowed_scopes with invalid_scope', async () => {
      const app = await serviceApp();
      const refused = await expectOAuthError(
        await requestToken(app, { scope: 'admin:users:read admin:audit:read' }),
        400,
        'invalid_scope',
      );
      expect(refused.error_description).toContain('admin:audit:read');
      await expectOAuthError(await requestToken(app, { scope: 'openid' }), 400, 'invalid_scope');
    });

    it('refuses a request without scope with invalid_scope when the app has no allowed_scopes', async () => {
      const app = await serviceApp([]);
      await expectOAuthError(await requestToken(app), 400, 'invalid_scope');
    });

    it('refuses an app without the switch with unauthorized_client', async () => {
      const plain = await registerClient(server);
      await expectOAuthError(await requestToken(plain), 400, 'unauthorized_client');
    });

    it('refuses wrong client credentials with 401 invalid_client', async () => {
      const app = await serviceApp();
      const response = await postForm(
        server,
        TOKEN,
        { grant_type: 'client_credentials' },
        basic(app.clientId, 'not-the-secret'),
      );
      await expectOAuthError(response, 401, 'invalid_client');
      expect(response.headers.get('www-authenticate')).toBe('Basic realm="campus-sso"');
      await expectOAuthError(
        await postForm(server, TOKEN, { grant_type: 'client_credentials', client_id: app.clientId }),
        401,
        'invalid_client',
      );
    });

    it('refuses a disabled app with invalid_client', async () => {
      const app = await serviceApp();
      await server.ctx.apps.change(app.clientId, { disabled: true });
      await expectOAuthError(await requestToken(app), 401, 'invalid_client');
    });
  });

  describe('service tokens at the endpoints that read tokens', () => {
    it('introspects to client_id, scope and times, and no sub', async () => {
      const app = await serviceApp();
      const token = await serviceToken(app, 'admin:users:read');
      const answer = await introspect(app, token.access_token);
      expect(answer).toEqual({
        active: true,
        client_id: app.clientId,
        scope: 'admin:users:read',
        token_type: 'Bearer',
        exp: expect.any(Number) as unknown,
        iat: expect.any(Number) as unknown,
      });
      expect(answer).not.toHaveProperty('sub');
      expect((answer.exp as number) - (answer.iat as number)).toBe(server.config.accessTokenTtl);
    });

    it("is inactive at another client's introspection", async () => {
      const app = await serviceApp();
      const token = await serviceToken(app);
      expect(await introspect(fixture.client, token.access_token)).toEqual({ active: false });
    });

    it('is refused at userinfo and get-user-info: there is no user', async () => {
      const app = await serviceApp();
      const token = await serviceToken(app);
      const userinfo = await fetch(`${server.baseUrl}/v1/oauth2/userinfo`, {
        headers: { authorization: `Bearer ${token.access_token}` },
      });
      const refused = await expectOAuthError(userinfo, 401, 'invalid_token');
      expect(refused.error_description).toContain('client_credentials');
      expect(userinfo.headers.get('www-authenticate')).toContain('error="invalid_token"');
      const legacy = await getUserInfo(server, token.access_token);
      expect(legacy.status).toBe(401);
      expect(await json(legacy)).toMatchObject({ code: -1, data: {} });
    });

    it('cannot be used as a refresh token', async () => {
      const app = await serviceApp();
      const token = await serviceToken(app);
      await expectOAuthError(
        await requestToken(app, { grant_type: 'refresh_token', refresh_token: token.access_token }),
        400,
        'invalid_grant',
      );
    });

    it('is revoked by its own client (RFC 7009) and then inactive', async () => {
      const app = await serviceApp();
      const token = await serviceToken(app);
      const other = await serviceApp();
      // RFC 7009 §2.1: another client may not revoke it.
      await expectOAuthError(
        await postForm(server, REVOKE, { token: token.access_token }, as(other)),
        400,
        'invalid_request',
      );
      expect((await introspect(app, token.access_token)).active).toBe(true);
      const revoked = await postForm(server, REVOKE, { token: token.access_token }, as(app));
      expect(revoked.status).toBe(200);
      expect(await introspect(app, token.access_token)).toEqual({ active: false });
      expect(await findServicePrincipal(server.ctx, token.access_token)).toBeNull();
    });
  });

  describe('findServicePrincipal', () => {
    it('answers the app and its scopes for a service token', async () => {
      const app = await serviceApp();
      const token = await serviceToken(app, 'admin:users:write');
      expect(await findServicePrincipal(server.ctx, token.access_token)).toEqual({
        clientId: app.clientId,
        scopes: ['admin:users:write'],
      });
    });

    it("answers null for a user's access token and for an unknown one", async () => {
      const tokens = await tokensFor(server, admin, fixture.client);
      expect(await findServicePrincipal(server.ctx, tokens.access_token)).toBeNull();
      expect(await findServicePrincipal(server.ctx, 'no-such-token')).toBeNull();
    });

    it('is no longer active once the token expired', async () => {
      const app = await serviceApp();
      const token = await serviceToken(app);
      const { serviceTokens } = server.ctx.store;
      const later = Date.now() + (server.config.accessTokenTtl + 1) * 1000;
      expect(await serviceTokens.findActive(credentialKey(token.access_token), later)).toBeUndefined();
    });

    it('answers null once client_credentials is switched off, and for good', async () => {
      const app = await serviceApp();
      const token = await serviceToken(app);
      await server.ctx.apps.change(app.clientId, { clientCredentials: false });
      expect(await findServicePrincipal(server.ctx, token.access_token)).toBeNull();
      await server.ctx.apps.change(app.clientId, { clientCredentials: true });
      expect(await findServicePrincipal(server.ctx, token.access_token)).toBeNull();
    });

    it('answers null once the secret is rotated or the app deleted', async () => {
      const rotated = await serviceApp();
      const first = await serviceToken(rotated);
      await server.ctx.apps.rotateSecret(rotated.clientId);
      expect(await findServicePrincipal(server.ctx, first.access_token)).toBeNull();

      const deleted = await serviceApp();
      const second = await serviceToken(deleted);
      await server.ctx.apps.delete(deleted.clientId);
      expect(await findServicePrincipal(server.ctx, second.access_token)).toBeNull();
    });

    it('answers null once a scope is taken off allowed_scopes; adding one keeps the token', async () => {
      const app = await serviceApp(['admin:users:read']);
      const token = await serviceToken(app);
      await server.ctx.apps.change(app.clientId, { allowedScopes: ['admin:users:read', 'admin:audit:read'] });
      expect((await findServicePrincipal(server.ctx, token.access_token))?.scopes).toEqual([
        'admin:users:read',
      ]);
      await server.ctx.apps.change(app.clientId, { allowedScopes: ['admin:audit:read'] });
      expect(await findServicePrincipal(server.ctx, token.access_token)).toBeNull();
    });
  });

  describe('the admin API fields client_credentials and allowed_scopes', () => {
    const create = async (body: Record<string, unknown>): Promise<Response> =>
      admin.call('POST', '/v1/admin/apps', {
        name: 'Timetable',
        emoji: '🗓️',
        redirect_uris: ['https://timetable.example.edu/callback'],
        ...body,
      });

    it('creates an app with them, shows them, and changes them with PATCH', async () => {
      const created = await json<AppAnswer>(
        await create({ client_credentials: true, allowed_scopes: ['admin:users:read'] }),
      );
      expect(created.code).toBe(0);
      expect(created.data.app).toMatchObject({
        client_credentials: true,
        allowed_scopes: ['admin:users:read'],
      });
      const clientId = created.data.app.client_id as string;
      const patched = await json<AppAnswer>(
        await admin.call('PATCH', `/v1/admin/apps/${clientId}`, {
          allowed_scopes: ['admin:users:read', 'admin:audit:read'],
        }),
      );
      expect(patched.data.app).toMatchObject({
        client_credentials: true,
        allowed_scopes: ['admin:users:read', 'admin:audit:read'],
      });
      const shown = await json<AppAnswer>(await admin.call('GET', `/v1/admin/apps/${clientId}`));
      expect(shown.data.app).toMatchObject({ allowed_scopes: ['admin:users:read', 'admin:audit:read'] });
      const client = { clientId, clientSecret: created.data.client_secret as string } as Client;
      expect((await serviceToken(client, 'admin:audit:read')).scope).toBe('admin:audit:read');
    });

    it('defaults to off with no scopes', async () => {
      const created = await json<AppAnswer>(await create({}));
      expect(created.data.app).toMatchObject({ client_credentials: false, allowed_scopes: [] });
    });

    it('refuses scopes about a user, malformed ones, and a wrong type with 400, changing nothing', async () => {
      for (const allowed_scopes of [
        ['openid'],
        ['offline_access'],
        ['two words'],
        ['quote"d'],
        'admin:users:read',
      ]) {
        const response = await create({ client_credentials: true, allowed_scopes });
        expect(response.status).toBe(400);
        expect((await json<AppAnswer>(response)).code).toBe(1);
      }
      const app = await serviceApp(['admin:users:read']);
      const response = await admin.call('PATCH', `/v1/admin/apps/${app.clientId}`, {
        allowed_scopes: ['openid'],
      });
      expect(response.status).toBe(400);
      expect((await server.ctx.store.apps.find(app.clientId))?.allowedScopes).toEqual(['admin:users:read']);
    });

    it('lists client_credentials in the discovery documents', async () => {
      for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
        const metadata = await json<{ grant_types_supported: string[] }>(await fetch(server.baseUrl + path));
        expect(metadata.grant_types_supported).toContain('client_credentials');
      }
    });
  });
});
