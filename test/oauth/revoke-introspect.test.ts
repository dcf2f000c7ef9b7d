/**
 * docs/interface.md#openid-connect: RFC 7009 revocation and RFC 7662 introspection, both
 * client-authenticated.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { json } from '../helpers/http.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import {
  basic,
  type Client,
  expectOAuthError,
  getUserInfo,
  postForm,
  registerClient,
  type TokenBody,
  tokensFor,
} from './support.js';

const REVOKE = '/v1/oauth2/revoke';
const INTROSPECT = '/v1/oauth2/introspect';

describeOnDatabases(
  'revocation and introspection',
  { transport: 'inject', client: true, user: 'user' },
  (fixture) => {
    const { server, client, user } = fixture;
    const { uin, browser } = user;
    let other: Client;

    beforeAll(async () => {
      other = await registerClient(server);
    });

    const as = (who: Client): string => basic(who.clientId, who.clientSecret);
    const refreshWith = (token: string): Promise<Response> =>
      postForm(server, '/v1/oauth2/token', { grant_type: 'refresh_token', refresh_token: token }, as(client));

    describe('POST /v1/oauth2/revoke', () => {
      it('revokes an access token: 200, and the token stops working', async () => {
        const tokens = await tokensFor(server, browser, client);
        const response = await postForm(
          server,
          REVOKE,
          { token: tokens.access_token, token_type_hint: 'access_token' },
          as(client),
        );
        expect(response.status).toBe(200);
        expect(await response.text()).toBe('');
        expect((await getUserInfo(server, tokens.access_token)).status).toBe(401);
      });

      it('revokes a refresh token and its whole family', async () => {
        const tokens = await tokensFor(server, browser, client, { scope: 'offline_access' });
        expect((await postForm(server, REVOKE, { token: tokens.refresh_token! }, as(client))).status).toBe(
          200,
        );
        await expectOAuthError(await refreshWith(tokens.refresh_token!), 400, 'invalid_grant');
        expect((await getUserInfo(server, tokens.access_token)).status).toBe(401);
      });

      it('finds the token even with a wrong or unknown hint', async () => {
        const tokens = await tokensFor(server, browser, client, { scope: 'offline_access' });
        expect(
          (
            await postForm(
              server,
              REVOKE,
              { token: tokens.access_token, token_type_hint: 'refresh_token' },
              as(client),
            )
          ).status,
        ).toBe(200);
        expect((await getUserInfo(server, tokens.access_token)).status).toBe(401);
        expect(
          (
            await postForm(
              server,
              REVOKE,
              { token: tokens.refresh_token!, token_type_hint: 'banana' },
              as(client),
            )
          ).status,
        ).toBe(200);
        await expectOAuthError(await refreshWith(tokens.refresh_token!), 400, 'invalid_grant');
      });

      it('answers 200 for an unknown token', async () => {
        expect((await postForm(server, REVOKE, { token: 'never-issued' }, as(client))).status).toBe(200);
      });

      it("refuses to revoke another client's token, and leaves it working", async () => {
        const tokens = await tokensFor(server, browser, client);
        await expectOAuthError(
          await postForm(server, REVOKE, { token: tokens.access_token }, as(other)),
          400,
          'invalid_request',
        );
        expect((await getUserInfo(server, tokens.access_token)).status).toBe(200);
      });

      it('requires client authentication', async () => {
        const response = await postForm(server, REVOKE, { token: 'x' });
        await expectOAuthError(response, 401, 'invalid_client');
        const wrong = await postForm(server, REVOKE, { token: 'x' }, basic(client.clientId, 'wrong'));
        await expectOAuthError(wrong, 401, 'invalid_client');
        expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="campus-sso"');
      });

      it('requires the token parameter', async () => {
        await expectOAuthError(await postForm(server, REVOKE, {}, as(client)), 400, 'invalid_request');
      });
    });

    describe('POST /v1/oauth2/introspect', () => {
      const introspect = async (
        token: string,
        who: Client = client,
        hint?: string,
      ): Promise<Record<string, unknown>> => {
        const response = await postForm(
          server,
          INTROSPECT,
          { token, ...(hint ? { token_type_hint: hint } : {}) },
          as(who),
        );
        expect(response.status).toBe(200);
        expect(response.headers.get('cache-control')).toBe('no-store');
        return json(response);
      };

      it('describes an active access token', async () => {
        const tokens: TokenBody = await tokensFor(server, browser, client, { scope: 'openid profile' });
        const answer = await introspect(tokens.access_token);
        expect(answer).toEqual({
          active: true,
          scope: 'openid profile',
          client_id: client.clientId,
          token_type: 'Bearer',
          exp: expect.any(Number),
          iat: expect.any(Number),
          sub: String(uin),
          uin,
          user_group: 'user',
        });
        expect((answer.exp as number) - (answer.iat as number)).toBe(7200);
      });

      it('describes an active refresh token', async () => {
        const tokens = await tokensFor(server, browser, client, { scope: 'offline_access' });
        expect(await introspect(tokens.refresh_token!, client, 'refresh_token')).toMatchObject({
          active: true,
          client_id: client.clientId,
          uin,
        });
      });

      it('answers {"active":false} for an unknown, revoked or foreign token', async () => {
        const tokens = await tokensFor(server, browser, client);
        expect(await introspect('never-issued')).toEqual({ active: false });
        expect(await introspect(tokens.access_token, other)).toEqual({ active: false });
        await postForm(server, REVOKE, { token: tokens.access_token }, as(client));
        expect(await introspect(tokens.access_token)).toEqual({ active: false });
      });

      it('answers {"active":false} for a rotated refresh token', async () => {
        const tokens = await tokensFor(server, browser, client, { scope: 'offline_access' });
        expect((await refreshWith(tokens.refresh_token!)).status).toBe(200);
        expect(await introspect(tokens.refresh_token!)).toEqual({ active: false });
      });

      it('requires client authentication and the token parameter', async () => {
        await expectOAuthError(await postForm(server, INTROSPECT, { token: 'x' }), 401, 'invalid_client');
        await expectOAuthError(await postForm(server, INTROSPECT, {}, as(client)), 400, 'invalid_request');
      });
    });
  },
);
