/**
 * A third-party client against the real server: openid-client 6's device-flow functions
 * (`initiateDeviceAuthorization`, `pollDeviceAuthorizationGrant`) with discovery and id_token validation,
 * a student approving on the #/device page's calls (docs/interface.md#device-authorization-grant).
 */
import * as oidc from 'openid-client';
import { expect, it } from 'vitest';
import { describeOnDatabases } from '../helpers/fixture.js';
import { PASSWORD, freshUin, registerClient } from '../oauth/support.js';
import { Browser } from '../helpers/http.js';

describeOnDatabases('openid-client device flow', {}, ({ server }) => {
  async function configuration(): Promise<{ config: oidc.Configuration }> {
    const app = await registerClient(server, {
      name: 'Classroom screen',
      emoji: '📺',
      redirectUris: [],
      deviceGrant: true,
    });
    const config = await oidc.discovery(new URL(server.baseUrl), app.clientId, app.clientSecret, undefined, {
      // The test server speaks plain http on loopback.
      execute: [oidc.allowInsecureRequests],
    });
    return { config };
  }

  it('discovers the endpoint, gets a user code, and receives validated tokens once a student allows', async () => {
    const { config } = await configuration();
    expect(config.serverMetadata().device_authorization_endpoint).toBe(
      `${server.baseUrl}/v1/oauth2/device_authorization`,
    );
    const device = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile offline_access' });
    expect(device.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);

    const uin = freshUin();
    await server.ctx.users.create(uin, PASSWORD, 'member', { name: 'Li Hua' });
    const student = new Browser(server);
    expect((await student.login(uin, PASSWORD)).status).toBe(200);
    const allowed = await student.call('POST', '/v1/oauth2/device/decision', {
      user_code: device.user_code.toLowerCase(),
      allow: true,
    });
    expect(allowed.status).toBe(200);

    const tokens = await oidc.pollDeviceAuthorizationGrant(config, device);
    expect(tokens.refresh_token).toBeDefined();
    // openid-client validated the id_token (issuer, audience, signature, times) before answering.
    expect(tokens.claims()).toMatchObject({ sub: String(uin), aud: config.clientMetadata().client_id });
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, String(uin));
    expect(userinfo).toMatchObject({ sub: String(uin), name: 'Li Hua' });
  });

  it('stops polling with access_denied when the student denies', async () => {
    const { config } = await configuration();
    const device = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    const uin = freshUin();
    await server.ctx.users.create(uin, PASSWORD, 'member');
    const student = new Browser(server);
    expect((await student.login(uin, PASSWORD)).status).toBe(200);
    const denied = await student.call('POST', '/v1/oauth2/device/decision', {
      user_code: device.user_code,
      allow: false,
    });
    expect(denied.status).toBe(200);
    await expect(oidc.pollDeviceAuthorizationGrant(config, device)).rejects.toMatchObject({
      error: 'access_denied',
    });
  });
});
