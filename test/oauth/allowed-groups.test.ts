/**
 * `allowed_groups` everywhere (docs/interface.md#people-groups-and-audit, docs/security.md): a user outside an
 * app's allowed groups gets no tokens from any grant, and an access token stops working the moment its user
 * is outside them; when either side changes (the user's groups, the app's allowed groups) what the user
 * holds for the app is revoked for good. Over real HTTP, on SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { describeOnDatabases } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import {
  PASSWORD,
  basic,
  type Client,
  exchangeCode,
  expectOAuthError,
  freshUin,
  getUserInfo,
  legacyExchange,
  obtainCode,
  postForm,
  registerClient,
  type TokenBody,
  tokensFor,
} from './support.js';

describeOnDatabases(
  'allowed_groups after authorization',
  { transport: 'inject', user: 'admin' },
  ({ server, user }) => {
    const admin = user.browser;

    /** A teachers-only app, and a teacher signed in. */
    async function teacherAndApp(
      allowedGroups: readonly string[] = ['teachers'],
      groups: readonly string[] = ['teachers'],
    ): Promise<{ uin: number; browser: Browser; app: Client }> {
      const app = await registerClient(server, { allowedGroups: [...allowedGroups] });
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'member', { groups: [...groups] });
      const browser = new Browser(server);
      expect((await browser.login(uin, PASSWORD)).status).toBe(200);
      return { uin, browser, app };
    }

    /** The user's groups changed in the database alone, as by a change that bypassed every service. */
    const moveOutOfGroups = (uin: number) => server.ctx.store.users.update(uin, { groups: ['students'] });

    const refresh = (app: Client, refreshToken: string): Promise<Response> =>
      postForm(
        server,
        '/v1/oauth2/token',
        { grant_type: 'refresh_token', refresh_token: refreshToken },
        basic(app.clientId, app.clientSecret),
      );

    const userinfo = (accessToken: string): Promise<Response> =>
      server.fetch(`/v1/oauth2/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });

    async function introspect(app: Client, token: string): Promise<Record<string, unknown>> {
      const response = await postForm(
        server,
        '/v1/oauth2/introspect',
        { token },
        basic(app.clientId, app.clientSecret),
      );
      expect(response.status).toBe(200);
      return json(response);
    }

    /** Every use of `tokens` is refused: user information (both), introspection, the refresh. */
    async function expectTokensRefused(app: Client, tokens: TokenBody): Promise<void> {
      expect((await getUserInfo(server, tokens.access_token)).status).toBe(401);
      expect((await userinfo(tokens.access_token)).status).toBe(401);
      expect(await introspect(app, tokens.access_token)).toEqual({ active: false });
      if (tokens.refresh_token !== undefined) {
        await expectOAuthError(await refresh(app, tokens.refresh_token), 400, 'invalid_grant');
      }
    }

    describe('every grant checks it', () => {
      it('refuses the code exchange (invalid_grant) of a user who left the groups after authorizing', async () => {
        const { uin, browser, app } = await teacherAndApp();
        const code = await obtainCode(browser, app);
        await moveOutOfGroups(uin);
        await expectOAuthError(await exchangeCode(server, app, code), 400, 'invalid_grant');
      });

      it('refuses the legacy exchange with the legacy invalid_grant answer', async () => {
        const { uin, browser, app } = await teacherAndApp();
        const code = await obtainCode(browser, app);
        await moveOutOfGroups(uin);
        const response = await legacyExchange(server, {
          client_id: app.clientId,
          client_secret: app.clientSecret,
          code,
        });
        expect(response.status).toBe(400);
        const body = await json<{ code: number; msg: string }>(response);
        expect(body.code).toBe(2);
        expect(body.msg).toMatch(/^invalid_grant: /);
      });

      it('refuses the refresh (invalid_grant)', async () => {
        const { uin, browser, app } = await teacherAndApp();
        const tokens = await tokensFor(server, browser, app, { scope: 'offline_access' });
        expect(tokens.refresh_token).toBeDefined();
        await moveOutOfGroups(uin);
        await expectOAuthError(await refresh(app, tokens.refresh_token!), 400, 'invalid_grant');
      });
    });

    describe('an access token of a user outside the groups stops working', () => {
      it('at get-user-info (401), userinfo (401) and introspection (active false), and works again inside', async () => {
        const { uin, browser, app } = await teacherAndApp();
        const tokens = await tokensFor(server, browser, app, { scope: 'openid' });
        expect((await getUserInfo(server, tokens.access_token)).status).toBe(200);
        await moveOutOfGroups(uin);
        await expectTokensRefused(app, tokens);
        // The check is the rule, read at each use: back in the group (nothing was revoked here), it works.
        await server.ctx.store.users.update(uin, { groups: ['teachers'] });
        expect((await getUserInfo(server, tokens.access_token)).status).toBe(200);
      });
    });

    describe("a change of either side revokes the user's tokens and codes for the app, for good", () => {
      async function grants(browser: Browser, app: Client) {
        const tokens = await tokensFor(server, browser, app, { scope: 'openid offline_access' });
        const code = await obtainCode(browser, app, { scope: 'openid offline_access' });
        return { tokens, code };
      }

      /** Everything granted before is dead even with the user back inside the groups. */
      async function expectRevokedForGood(
        uin: number,
        app: Client,
        granted: Awaited<ReturnType<typeof grants>>,
      ): Promise<void> {
        await server.ctx.store.users.update(uin, { groups: ['teachers'] });
        await server.ctx.store.apps.update(app.clientId, { allowedGroups: ['teachers'] });
        await expectTokensRefused(app, granted.tokens);
        await expectOAuthError(await exchangeCode(server, app, granted.code), 400, 'invalid_grant');
      }

      it("PATCH /v1/admin/users/:uin with groups outside the app's", async () => {
        const { uin, browser, app } = await teacherAndApp();
        const granted = await grants(browser, app);
        const other = await registerClient(server); // open to everyone: untouched
        const kept = await tokensFor(server, browser, other);
        const response = await admin.call('PATCH', `/v1/admin/users/${uin}`, { groups: ['students'] });
        expect(response.status).toBe(200);
        await expectRevokedForGood(uin, app, granted);
        expect((await getUserInfo(server, kept.access_token)).status).toBe(200);
      });

      it('POST /v1/admin/users/bulk remove_tag', async () => {
        const { uin, browser, app } = await teacherAndApp();
        const granted = await grants(browser, app);
        const response = await admin.call('POST', '/v1/admin/users/bulk', {
          uins: [uin],
          action: 'remove_tag',
          tag: 'teachers',
        });
        expect(response.status).toBe(200);
        await expectRevokedForGood(uin, app, granted);
      });

      it('PATCH /v1/admin/apps/:client_id narrowing allowed_groups, leaving the users inside it theirs', async () => {
        const { uin, browser, app } = await teacherAndApp([], ['students']);
        const granted = await grants(browser, app);
        const teacher = freshUin();
        await server.ctx.users.create(teacher, PASSWORD, 'member', { groups: ['teachers'] });
        const teacherBrowser = new Browser(server);
        expect((await teacherBrowser.login(teacher, PASSWORD)).status).toBe(200);
        const teachersTokens = await tokensFor(server, teacherBrowser, app, { scope: 'offline_access' });
        const response = await admin.call('PATCH', `/v1/admin/apps/${app.clientId}`, {
          allowed_groups: ['teachers'],
        });
        expect(response.status).toBe(200);
        expect((await getUserInfo(server, teachersTokens.access_token)).status).toBe(200);
        expect((await refresh(app, teachersTokens.refresh_token!)).status).toBe(200);
        await expectRevokedForGood(uin, app, granted);
      });
    });
  },
);
