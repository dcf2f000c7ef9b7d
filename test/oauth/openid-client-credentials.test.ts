/**
 * A third-party client against the real server: openid-client 6's client-credentials grant
 * (`clientCredentialsGrant`), introspection and revocation, with discovery, as a school's roster or
 * timetable job would use them (docs/interface.md#service-accounts-client-credentials).
 */
import * as oidc from 'openid-client';
import { expect, it } from 'vitest';
import { describeOnDatabases } from '../helpers/fixture.js';
import { registerClient } from './support.js';

describeOnDatabases('openid-client client-credentials grant', {}, ({ server }) => {
  async function configuration(
    authentication: 'post' | 'basic',
    allowedScopes: readonly string[] = ['admin:users:read', 'admin:users:write'],
  ): Promise<oidc.Configuration> {
    const app = await registerClient(server, {
      name: 'Roster sync',
      emoji: '🔄',
      redirectUris: [],
      clientCredentials: true,
      allowedScopes,
    });
    const clientAuth =
      authentication === 'basic'
        ? oidc.ClientSecretBasic(app.clientSecret)
        : oidc.ClientSecretPost(app.clientSecret);
    return oidc.discovery(new URL(server.baseUrl), app.clientId, app.clientSecret, clientAuth, {
      // The test server speaks plain http on loopback.
      execute: [oidc.allowInsecureRequests],
    });
  }

  it('discovers the grant, obtains a token with client_secret_basic, and introspects it', async () => {
    const config = await configuration('basic');
    expect(config.serverMetadata().grant_types_supported).toContain('client_credentials');
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'admin:users:read' });
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'admin:users:read' });
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.id_token).toBeUndefined();
    expect(tokens.expiresIn()).toBeGreaterThan(0);

    const introspection = await oidc.tokenIntrospection(config, tokens.access_token);
    expect(introspection).toMatchObject({
      active: true,
      client_id: config.clientMetadata().client_id,
      scope: 'admin:users:read',
    });
    expect(introspection.sub).toBeUndefined();
  });

  it('obtains every allowed scope with client_secret_post when it names none, and revokes the token', async () => {
    const config = await configuration('post');
    const tokens = await oidc.clientCredentialsGrant(config);
    expect(tokens.scope).toBe('admin:users:read admin:users:write');
    await oidc.tokenRevocation(config, tokens.access_token);
    expect(await oidc.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: false });
  });

  it('gets invalid_scope for a scope the app is not allowed', async () => {
    const config = await configuration('basic', ['admin:users:read']);
    await expect(oidc.clientCredentialsGrant(config, { scope: 'admin:audit:read' })).rejects.toMatchObject({
      error: 'invalid_scope',
    });
  });

  it('cannot read user information with the token: there is no user', async () => {
    const config = await configuration('basic');
    const tokens = await oidc.clientCredentialsGrant(config);
    await expect(
      oidc.fetchUserInfo(config, tokens.access_token, oidc.skipSubjectCheck),
    ).rejects.toMatchObject({ status: 401 });
  });
});
