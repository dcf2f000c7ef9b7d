/**
 * `exchangeAuthorizationCode` (RFC 6749 §4.1.3, RFC 7636 §4.6, RFC 9700 §4.2.4), one `it` per rule, called
 * directly on a real SQLite store: no HTTP, an answer in seconds. The same rules over HTTP, on both databases:
 * test/oauth/token.test.ts and test/oauth/legacy.test.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidGrant, InvalidRequest } from '../../src/oauth/errors.js';
import {
  type AuthorizationCodeExchange,
  type AuthorizationCodeOptions,
  exchangeAuthorizationCode,
} from '../../src/oauth/grants/authorization-code.js';
import type { AppRecord } from '../../src/storage/store.js';
import { REDIRECT_URI, useGrantWorld } from './grant-context.js';

/** The standard token endpoint checks redirect_uri and may issue a refresh token. */
const STANDARD: AuthorizationCodeOptions = { checkRedirectUri: true, accessTokenOnly: false };
/** The legacy endpoint (docs/interface.md#legacy-token-endpoint) sends no redirect_uri and gets an access token only. */
const LEGACY: AuthorizationCodeOptions = { checkRedirectUri: false, accessTokenOnly: true };

const TEN_MINUTES = 10 * 60 * 1000;

function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

describe('exchangeAuthorizationCode', () => {
  const world = useGrantWorld();

  function exchange(
    client: AppRecord,
    code: string | undefined,
    extra: Partial<AuthorizationCodeExchange> = {},
    options = STANDARD,
  ) {
    const request = { code, redirectUri: REDIRECT_URI, codeVerifier: undefined, ...extra };
    return exchangeAuthorizationCode(world().ctx, client, request, options);
  }

  /** A client, a user and a code that user approved for it. */
  async function approved(params: Record<string, string> = {}) {
    const { app } = await world().client();
    const uin = await world().user();
    return { app, uin, code: await world().code(app, uin, params) };
  }

  it('issues an access token for a valid code, and nothing else without offline_access', async () => {
    const { app, uin, code } = await approved();
    const issued = await exchange(app, code);
    expect(issued).toMatchObject({ clientId: app.clientId, scope: null, refreshToken: undefined });
    expect(issued.user.uin).toBe(uin);
    expect(await world().accessToken(issued.accessToken)).toMatchObject({ uin, revoked: false });
  });

  it('requires code (RFC 6749 §4.1.3) with invalid_request', async () => {
    const { app } = await approved();
    await expect(exchange(app, undefined)).rejects.toBeInstanceOf(InvalidRequest);
  });

  it('requires redirect_uri, since the authorization request carried one (RFC 6749 §4.1.3)', async () => {
    const { app, code } = await approved();
    await expect(exchange(app, code, { redirectUri: undefined })).rejects.toBeInstanceOf(InvalidRequest);
  });

  it('exempts the legacy endpoint from redirect_uri, and issues it an access token only', async () => {
    const { app, code } = await approved({ scope: 'offline_access' });
    const issued = await exchange(app, code, { redirectUri: undefined }, LEGACY);
    expect(issued.refreshToken).toBeUndefined();
  });

  it('refuses an unknown code with invalid_grant (RFC 6749 §5.2)', async () => {
    const { app } = await approved();
    await expect(exchange(app, 'not-a-code-this-server-issued')).rejects.toBeInstanceOf(InvalidGrant);
  });

  it('refuses a code issued to another client in the words of an unknown code, and leaves it usable (RFC 6749 §4.1.3)', async () => {
    const { app, code } = await approved();
    const { app: other } = await world().client();
    const stolen = await exchange(other, code).catch((error: unknown) => error);
    const unknown = await exchange(other, 'not-a-code-this-server-issued').catch((error: unknown) => error);
    expect(stolen).toBeInstanceOf(InvalidGrant);
    expect((stolen as InvalidGrant).description).toBe((unknown as InvalidGrant).description);
    await expect(exchange(app, code)).resolves.toMatchObject({ clientId: app.clientId });
  });

  it('refuses a code used twice and revokes the tokens it issued (RFC 6749 §4.1.2, RFC 9700 §4.2.4)', async () => {
    const { app, code } = await approved({ scope: 'offline_access' });
    const first = await exchange(app, code);
    await expect(exchange(app, code)).rejects.toBeInstanceOf(InvalidGrant);
    expect(await world().accessToken(first.accessToken)).toMatchObject({ revoked: true });
    expect(await world().refreshToken(first.refreshToken!)).toMatchObject({ revoked: true });
  });

  it('redeems a code exactly once when two exchanges race, and revokes what the winner got', async () => {
    const { app, code } = await approved();
    const results = await Promise.allSettled([exchange(app, code), exchange(app, code)]);
    const won = results.filter((result) => result.status === 'fulfilled');
    const lost = results.filter((result) => result.status === 'rejected');
    expect({ won: won.length, lost: lost.length }).toEqual({ won: 1, lost: 1 });
    expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(InvalidGrant);
    const winner = (won[0] as PromiseFulfilledResult<{ accessToken: string }>).value;
    expect(await world().accessToken(winner.accessToken)).toMatchObject({ revoked: true });
  });

  it('refuses a code older than 10 minutes (RFC 6749 §4.1.2)', async () => {
    const { app, code } = await approved();
    world().clock.advance(TEN_MINUTES);
    await expect(exchange(app, code)).rejects.toThrow(/expired/);
  });

  it('still revokes the tokens of a code replayed after it expired (the tokens outlive the code)', async () => {
    const { app, code } = await approved();
    const first = await exchange(app, code);
    world().clock.advance(TEN_MINUTES);
    await expect(exchange(app, code)).rejects.toThrow(/already been used/);
    expect(await world().accessToken(first.accessToken)).toMatchObject({ revoked: true });
  });

  it('refuses a redirect_uri that differs from the authorization request (RFC 6749 §4.1.3)', async () => {
    const { app, code } = await approved();
    await expect(exchange(app, code, { redirectUri: `${REDIRECT_URI}/other` })).rejects.toBeInstanceOf(
      InvalidGrant,
    );
  });

  it('accepts the right S256 code_verifier (RFC 7636 §4.6)', async () => {
    const { verifier, challenge } = pkcePair();
    const { app, code } = await approved({ code_challenge: challenge, code_challenge_method: 'S256' });
    await expect(exchange(app, code, { codeVerifier: verifier })).resolves.toMatchObject({
      clientId: app.clientId,
    });
  });

  it('accepts the right plain code_verifier (RFC 7636 §4.6)', async () => {
    const { verifier } = pkcePair();
    const { app, code } = await approved({ code_challenge: verifier, code_challenge_method: 'plain' });
    await expect(exchange(app, code, { codeVerifier: verifier })).resolves.toMatchObject({
      clientId: app.clientId,
    });
  });

  it('requires code_verifier when the code carries a challenge (RFC 7636 §4.6)', async () => {
    const { challenge } = pkcePair();
    const { app, code } = await approved({ code_challenge: challenge, code_challenge_method: 'S256' });
    await expect(exchange(app, code)).rejects.toThrow(/code_verifier is required/);
  });

  it('refuses a code_verifier that is not 43 to 128 unreserved characters (RFC 7636 §4.1)', async () => {
    const { challenge } = pkcePair();
    const { app, code } = await approved({ code_challenge: challenge, code_challenge_method: 'S256' });
    await expect(exchange(app, code, { codeVerifier: 'too-short' })).rejects.toThrow(/43 to 128/);
  });

  it('refuses a wrong code_verifier with invalid_grant (RFC 7636 §4.6)', async () => {
    const { challenge } = pkcePair();
    const { app, code } = await approved({ code_challenge: challenge, code_challenge_method: 'S256' });
    await expect(exchange(app, code, { codeVerifier: pkcePair().verifier })).rejects.toThrow(
      /does not match/,
    );
  });

  it('refuses an S256 challenge answered with the challenge itself (the plain downgrade)', async () => {
    const { challenge } = pkcePair();
    const { app, code } = await approved({ code_challenge: challenge, code_challenge_method: 'S256' });
    await expect(exchange(app, code, { codeVerifier: challenge })).rejects.toBeInstanceOf(InvalidGrant);
  });

  it('refuses a code_verifier for a code issued without a challenge (RFC 9700 §4.8.2, PKCE downgrade)', async () => {
    const { app, code } = await approved();
    await expect(exchange(app, code, { codeVerifier: pkcePair().verifier })).rejects.toThrow(
      /no code_challenge/,
    );
  });

  it('refuses tokens for a user whose account is disabled after approving', async () => {
    const { app, uin, code } = await approved();
    // The grant's own check, whatever disabled the account (the row itself).
    await world().ctx.store.users.update(uin, { disabled: true });
    await expect(exchange(app, code)).rejects.toThrow(/disabled/);
  });

  it('refuses a code approved before an admin disabled the user: disabling voids it (docs/security.md)', async () => {
    const { app, uin, code } = await approved();
    await world().ctx.users.setDisabled(uin, true);
    await expect(exchange(app, code)).rejects.toThrow(InvalidGrant);
  });

  it('issues a refresh token for offline_access (OpenID Connect Core §11)', async () => {
    const { app, code } = await approved({ scope: 'openid offline_access' });
    const issued = await exchange(app, code);
    expect(issued.scope).toBe('openid offline_access');
    expect(await world().refreshToken(issued.refreshToken!)).toMatchObject({
      clientId: app.clientId,
      scope: 'openid offline_access',
      rotatedAt: null,
    });
  });

  it('issues no refresh token when an admin switched them off for the app', async () => {
    const { app, code } = await approved({ scope: 'offline_access' });
    await world().ctx.store.apps.update(app.clientId, { allowRefreshTokens: false });
    const strict = (await world().ctx.store.apps.find(app.clientId))!;
    expect((await exchange(strict, code)).refreshToken).toBeUndefined();
  });

  it("carries the code's nonce and the sign-in time for the id_token (OpenID Connect Core §3.1.3.6)", async () => {
    const { app, code } = await approved({ scope: 'openid', nonce: 'n-0S6_WzA2Mj' });
    const issued = await exchange(app, code);
    expect(issued).toMatchObject({ nonce: 'n-0S6_WzA2Mj', authTime: world().clock.now() });
  });
});
