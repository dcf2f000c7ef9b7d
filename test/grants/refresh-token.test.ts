/**
 * `exchangeRefreshToken` (RFC 6749 §6, RFC 9700 §4.14.2), one `it` per rule, called directly on a real SQLite
 * store: no HTTP, an answer in seconds. The same rules over HTTP, on both databases: test/oauth/token.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { InvalidGrant, InvalidRequest, InvalidScope, UnauthorizedClient } from '../../src/oauth/errors.js';
import { exchangeAuthorizationCode } from '../../src/oauth/grants/authorization-code.js';
import { exchangeRefreshToken } from '../../src/oauth/grants/refresh-token.js';
import type { AppRecord } from '../../src/storage/store.js';
import { REDIRECT_URI, useGrantWorld } from './grant-context.js';

const THIRTY_DAYS = 30 * 24 * 3600 * 1000;

describe('exchangeRefreshToken', () => {
  const world = useGrantWorld();

  /** A client, a user, and the tokens of a code they approved with `scope` (offline_access by default). */
  async function granted(scope = 'offline_access') {
    const { app } = await world().client();
    const uin = await world().user();
    const code = await world().code(app, uin, { scope });
    const issued = await exchangeAuthorizationCode(
      world().ctx,
      app,
      { code, redirectUri: REDIRECT_URI, codeVerifier: undefined },
      { checkRedirectUri: true, accessTokenOnly: false },
    );
    return { app, uin, accessToken: issued.accessToken, refreshToken: issued.refreshToken! };
  }

  function refresh(client: AppRecord, refreshToken: string | undefined, scope?: string) {
    return exchangeRefreshToken(world().ctx, client, { refreshToken, scope });
  }

  it('requires refresh_token (RFC 6749 §6) with invalid_request', async () => {
    const { app } = await granted();
    await expect(refresh(app, undefined)).rejects.toBeInstanceOf(InvalidRequest);
  });

  it('refuses an unknown refresh token with invalid_grant (RFC 6749 §5.2)', async () => {
    const { app } = await granted();
    await expect(refresh(app, 'not-a-token-this-server-issued')).rejects.toBeInstanceOf(InvalidGrant);
  });

  it("refuses another client's refresh token in the words of an unknown one (RFC 6749 §6)", async () => {
    const { refreshToken } = await granted();
    const { app: other } = await world().client();
    const stolen = await refresh(other, refreshToken).catch((error: unknown) => error);
    const unknown = await refresh(other, 'not-a-token-this-server-issued').catch((error: unknown) => error);
    expect(stolen).toBeInstanceOf(InvalidGrant);
    expect((stolen as InvalidGrant).description).toBe((unknown as InvalidGrant).description);
  });

  it('rotates the refresh token at every use, in the same family, keeping its scope', async () => {
    const { app, refreshToken } = await granted('openid offline_access');
    const next = await refresh(app, refreshToken);
    expect(next.refreshToken).not.toBe(refreshToken);
    const before = await world().refreshToken(refreshToken);
    const after = await world().refreshToken(next.refreshToken!);
    expect(before?.rotatedAt).toBe(world().clock.now());
    expect(after).toMatchObject({
      familyId: before?.familyId,
      scope: 'openid offline_access',
      rotatedAt: null,
    });
  });

  it('revokes the whole family when a rotated refresh token is used again (RFC 9700 §4.14.2)', async () => {
    const { app, accessToken, refreshToken } = await granted();
    const next = await refresh(app, refreshToken);
    await expect(refresh(app, refreshToken)).rejects.toThrow(/already used/);
    expect(await world().refreshToken(next.refreshToken!)).toMatchObject({ revoked: true });
    expect(await world().accessToken(next.accessToken)).toMatchObject({ revoked: true });
    expect(await world().accessToken(accessToken)).toMatchObject({ revoked: true });
    await expect(refresh(app, next.refreshToken)).rejects.toBeInstanceOf(InvalidGrant);
  });

  it('lets one of two racing refreshes win and treats the other as a replay that revokes the family', async () => {
    const { app, refreshToken } = await granted();
    const results = await Promise.allSettled([refresh(app, refreshToken), refresh(app, refreshToken)]);
    const won = results.filter((result) => result.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const winner = (won[0] as PromiseFulfilledResult<{ refreshToken: string | undefined }>).value;
    expect(await world().refreshToken(winner.refreshToken!)).toMatchObject({ revoked: true });
  });

  it('refuses a revoked refresh token (RFC 6749 §5.2)', async () => {
    const { app, refreshToken } = await granted();
    const family = (await world().refreshToken(refreshToken))!.familyId;
    await world().ctx.store.tokens.revokeFamily(family);
    await expect(refresh(app, refreshToken)).rejects.toThrow(/revoked/);
  });

  it('refuses an expired refresh token (RFC 6749 §5.2)', async () => {
    const { app, refreshToken } = await granted();
    world().clock.advance(THIRTY_DAYS);
    await expect(refresh(app, refreshToken)).rejects.toThrow(/expired/);
  });

  it('refuses with unauthorized_client once an admin switches refresh tokens off (RFC 6749 §5.2)', async () => {
    const { app, refreshToken } = await granted();
    await world().ctx.store.apps.update(app.clientId, { allowRefreshTokens: false });
    const strict = (await world().ctx.store.apps.find(app.clientId))!;
    await expect(refresh(strict, refreshToken)).rejects.toBeInstanceOf(UnauthorizedClient);
  });

  it('refuses tokens for a user whose account is disabled since the grant', async () => {
    const { app, uin, refreshToken } = await granted();
    // The grant's own check, whatever disabled the account (the row itself).
    await world().ctx.store.users.update(uin, { disabled: true });
    await expect(refresh(app, refreshToken)).rejects.toThrow(/disabled/);
  });

  it('refuses a refresh token after an admin disabled the user: disabling revokes it for good', async () => {
    const { app, uin, refreshToken } = await granted();
    await world().ctx.users.setDisabled(uin, true);
    await world().ctx.users.setDisabled(uin, false);
    await expect(refresh(app, refreshToken)).rejects.toThrow(InvalidGrant);
  });

  it('keeps the original scope when none is asked for (RFC 6749 §6)', async () => {
    const { app, refreshToken } = await granted('openid offline_access');
    expect((await refresh(app, refreshToken)).scope).toBe('openid offline_access');
  });

  it('narrows the access token to a requested subset, while the new refresh token keeps the grant (RFC 6749 §6)', async () => {
    const { app, refreshToken } = await granted('openid offline_access');
    const next = await refresh(app, refreshToken, 'offline_access');
    expect(next.scope).toBe('offline_access');
    expect(await world().accessToken(next.accessToken)).toMatchObject({ scope: 'offline_access' });
    expect(await world().refreshToken(next.refreshToken!)).toMatchObject({ scope: 'openid offline_access' });
  });

  it('refuses a scope not originally granted with invalid_scope (RFC 6749 §6)', async () => {
    const { app, refreshToken } = await granted('offline_access');
    await expect(refresh(app, refreshToken, 'openid offline_access')).rejects.toBeInstanceOf(InvalidScope);
  });

  it('carries no nonce and the original sign-in time (OpenID Connect Core §12.2)', async () => {
    const { app, refreshToken } = await granted('openid offline_access');
    const signedInAt = world().clock.now();
    world().clock.advance(60_000);
    expect(await refresh(app, refreshToken)).toMatchObject({ nonce: null, authTime: signedInAt });
  });
});
