/**
 * docs/interface.md#authorization-page: a user who already authorized an app is sent straight back — but only
 * for what they approved. A request for more (say, `offline_access` on top of `openid`) asks again.
 */
import { expect, it } from 'vitest';
import { json } from '../helpers/http.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import { REDIRECT_URI, authorizeRedirect, registerClient, signedInUser } from './support.js';

describeOnDatabases('GET /v1/oauth2/app-info remembered consent', { transport: 'inject' }, ({ server }) => {
  async function consented(
    browser: Awaited<ReturnType<typeof signedInUser>>['browser'],
    clientId: string,
    scope?: string,
  ) {
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      ...(scope ? { scope } : {}),
    });
    const response = await browser.call('GET', `/v1/oauth2/app-info?${query}`);
    expect(response.status).toBe(200);
    return (await json<{ data: { consented: boolean } }>(response)).data.consented;
  }

  it('is false before the user authorized the app', async () => {
    const client = await registerClient(server);
    const { browser } = await signedInUser(server);
    expect(await consented(browser, client.clientId)).toBe(false);
  });

  it('is true for the same scope once the user authorized it', async () => {
    const client = await registerClient(server);
    const { browser } = await signedInUser(server);
    await authorizeRedirect(browser, {
      client_id: client.clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
    });
    expect(await consented(browser, client.clientId, 'openid')).toBe(true);
    expect(await consented(browser, client.clientId)).toBe(true);
  });

  it('is false when the app now asks for a scope the user did not approve', async () => {
    const client = await registerClient(server);
    const { browser } = await signedInUser(server);
    await authorizeRedirect(browser, {
      client_id: client.clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
    });
    expect(await consented(browser, client.clientId, 'openid offline_access')).toBe(false);
  });

  it('grows with each approval instead of forgetting what was approved before', async () => {
    const client = await registerClient(server);
    const { browser } = await signedInUser(server);
    await authorizeRedirect(browser, {
      client_id: client.clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'offline_access',
    });
    await authorizeRedirect(browser, {
      client_id: client.clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
    });
    expect(await consented(browser, client.clientId, 'openid offline_access')).toBe(true);
  });

  it('is false for a signed-out visitor even when the app was authorized', async () => {
    const client = await registerClient(server);
    const { browser } = await signedInUser(server);
    await authorizeRedirect(browser, { client_id: client.clientId, redirect_uri: REDIRECT_URI });
    await browser.call('POST', '/v1/account/logout');
    expect(await consented(browser, client.clientId)).toBe(false);
  });
});
