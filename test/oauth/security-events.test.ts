/**
 * Security events end access (docs/security.md): a password reset or change, a disabled user or app, refresh
 * tokens switched off and a withdrawn consent each end what was issued before — tokens, refresh tokens, codes
 * not yet redeemed, other sessions — for good. Over real HTTP, on SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { describeOnDatabases } from '../helpers/fixture.js';
import { Browser } from '../helpers/http.js';
import {
  PASSWORD,
  basic,
  type Client,
  exchangeCode,
  expectOAuthError,
  freshUin,
  getUserInfo,
  obtainCode,
  postForm,
  registerClient,
  signedInUser,
  type TokenBody,
  tokensFor,
} from './support.js';

const NEW_PASSWORD = 'a brand new passphrase 42';

describeOnDatabases(
  'security events',
  { transport: 'inject', user: 'admin', client: true },
  ({ server, user, client }) => {
    const admin = user.browser;

    function refresh(refreshToken: string, who: Client = client): Promise<Response> {
      return postForm(
        server,
        '/v1/oauth2/token',
        { grant_type: 'refresh_token', refresh_token: refreshToken },
        basic(who.clientId, who.clientSecret),
      );
    }

    /** What a signed-in user has obtained for `app`: tokens with a refresh token, and a code not yet redeemed. */
    async function grantsOf(
      browser: Browser,
      app: Client = client,
    ): Promise<{ tokens: TokenBody & { refresh_token: string }; code: string }> {
      const tokens = await tokensFor(server, browser, app, { scope: 'offline_access' });
      expect(tokens.refresh_token).toBeDefined();
      const code = await obtainCode(browser, app, { scope: 'offline_access' });
      return { tokens: tokens as TokenBody & { refresh_token: string }, code };
    }

    /** Every grant obtained before is dead: the access token, the refresh token and the code. */
    async function expectAllEnded(
      grants: { tokens: TokenBody & { refresh_token: string }; code: string },
      app: Client = client,
    ): Promise<void> {
      expect((await getUserInfo(server, grants.tokens.access_token)).status).toBe(401);
      await expectOAuthError(await refresh(grants.tokens.refresh_token, app), 400, 'invalid_grant');
      await expectOAuthError(await exchangeCode(server, app, grants.code), 400, 'invalid_grant');
    }

    describe('PATCH /v1/admin/users/:uin with a password', () => {
      it('revokes the access and refresh tokens issued before and voids the codes not yet redeemed', async () => {
        const { uin, browser } = await signedInUser(server);
        const grants = await grantsOf(browser);
        const reset = await admin.call('PATCH', `/v1/admin/users/${uin}`, { password: NEW_PASSWORD });
        expect(reset.status).toBe(200);
        await expectAllEnded(grants);
      });

      it('ends every session of the user', async () => {
        const { uin, browser } = await signedInUser(server);
        const other = new Browser(server);
        expect((await other.login(uin, PASSWORD)).status).toBe(200);
        expect((await admin.call('PATCH', `/v1/admin/users/${uin}`, { password: NEW_PASSWORD })).status).toBe(
          200,
        );
        expect((await browser.call('GET', '/v1/account/me')).status).toBe(401);
        expect((await other.call('GET', '/v1/account/me')).status).toBe(401);
      });
    });

    describe('PATCH /v1/admin/users/:uin disabled', () => {
      it('revokes the tokens and codes for good: enabling the user again does not bring them back', async () => {
        const { uin, browser } = await signedInUser(server);
        const grants = await grantsOf(browser);
        expect((await admin.call('PATCH', `/v1/admin/users/${uin}`, { disabled: true })).status).toBe(200);
        expect((await admin.call('PATCH', `/v1/admin/users/${uin}`, { disabled: false })).status).toBe(200);
        await expectAllEnded(grants);
      });
    });

    describe('POST /v1/account/password', () => {
      it('revokes the access and refresh tokens issued before and voids the codes not yet redeemed', async () => {
        const { browser } = await signedInUser(server);
        const grants = await grantsOf(browser);
        const change = await browser.call('POST', '/v1/account/password', {
          current_password: PASSWORD,
          new_password: NEW_PASSWORD,
        });
        expect(change.status).toBe(200);
        await expectAllEnded(grants);
      });

      it('ends the other sessions of the user and keeps the one that made the change', async () => {
        const { uin, browser } = await signedInUser(server);
        const other = new Browser(server);
        expect((await other.login(uin, PASSWORD)).status).toBe(200);
        const change = await browser.call('POST', '/v1/account/password', {
          current_password: PASSWORD,
          new_password: NEW_PASSWORD,
        });
        expect(change.status).toBe(200);
        expect((await other.call('GET', '/v1/account/me')).status).toBe(401);
        expect((await browser.call('GET', '/v1/account/me')).status).toBe(200);
        // The session kept still works for everything, new grants included.
        expect(
          (await getUserInfo(server, (await tokensFor(server, browser, client)).access_token)).status,
        ).toBe(200);
      });
    });

    describe('PATCH /v1/admin/apps/:client_id disabled', () => {
      it('revokes the tokens and codes for good: enabling the app again does not bring them back', async () => {
        const app = await registerClient(server);
        const { browser } = await signedInUser(server);
        const grants = await grantsOf(browser, app);
        expect((await admin.call('PATCH', `/v1/admin/apps/${app.clientId}`, { disabled: true })).status).toBe(
          200,
        );
        expect(
          (await admin.call('PATCH', `/v1/admin/apps/${app.clientId}`, { disabled: false })).status,
        ).toBe(200);
        await expectAllEnded(grants, app);
        // What is issued after enabling it works.
        const fresh = await tokensFor(server, browser, app);
        expect((await getUserInfo(server, fresh.access_token)).status).toBe(200);
      });
    });

    describe('PATCH /v1/admin/apps/:client_id allow_refresh_tokens', () => {
      it('revokes the refresh tokens for good: switching them on again does not bring them back', async () => {
        const app = await registerClient(server);
        const { browser } = await signedInUser(server);
        const { tokens } = await grantsOf(browser, app);
        const off = await admin.call('PATCH', `/v1/admin/apps/${app.clientId}`, {
          allow_refresh_tokens: false,
        });
        expect(off.status).toBe(200);
        const on = await admin.call('PATCH', `/v1/admin/apps/${app.clientId}`, {
          allow_refresh_tokens: true,
        });
        expect(on.status).toBe(200);
        await expectOAuthError(await refresh(tokens.refresh_token, app), 400, 'invalid_grant');
        // Switching refresh tokens off is not a reason to end the access tokens.
        expect((await getUserInfo(server, tokens.access_token)).status).toBe(200);
      });
    });

    describe('DELETE /v1/account/consents/:client_id', () => {
      it('voids the code the app obtained just before the withdrawal', async () => {
        const app = await registerClient(server);
        const { browser } = await signedInUser(server);
        const code = await obtainCode(browser, app, { scope: 'offline_access' });
        expect((await browser.call('DELETE', `/v1/account/consents/${app.clientId}`)).status).toBe(200);
        await expectOAuthError(await exchangeCode(server, app, code), 400, 'invalid_grant');
      });

      it("leaves the user's codes for other apps redeemable", async () => {
        const app = await registerClient(server);
        const { browser } = await signedInUser(server);
        await tokensFor(server, browser, app);
        const otherCode = await obtainCode(browser, client);
        expect((await browser.call('DELETE', `/v1/account/consents/${app.clientId}`)).status).toBe(200);
        expect((await exchangeCode(server, client, otherCode)).status).toBe(200);
      });
    });

    it('leaves other users alone', async () => {
      const { uin, browser } = await signedInUser(server);
      const bystander = await signedInUser(server, 'member', freshUin());
      const theirs = await grantsOf(bystander.browser);
      await grantsOf(browser);
      expect((await admin.call('PATCH', `/v1/admin/users/${uin}`, { password: NEW_PASSWORD })).status).toBe(
        200,
      );
      expect((await admin.call('PATCH', `/v1/admin/users/${uin}`, { disabled: true })).status).toBe(200);
      expect((await getUserInfo(server, theirs.tokens.access_token)).status).toBe(200);
      expect((await refresh(theirs.tokens.refresh_token)).status).toBe(200);
      expect((await exchangeCode(server, client, theirs.code)).status).toBe(200);
    });
  },
);
