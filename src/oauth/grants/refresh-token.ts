/**
 * The refresh-token grant (RFC 6749 §6), with rotation at every use and replay detection that revokes the
 * whole family (RFC 9700 §4.14.2, docs/interface.md#openid-connect).
 */
import type { AppContext } from '../../app-context.js';
import { isActiveUser } from '../../domain/users.js';
import { groupsAllow } from '../../shared/people.js';
import { credentialKey } from '../credentials.js';
import type { ClientRecord } from '../../storage/store.js';
import { InvalidGrant, InvalidRequest, InvalidScope, UnauthorizedClient } from '../errors.js';
import { scopeTokens } from '../scopes.js';
import { type IssuedTokens, mintAccessToken, mintRefreshToken, type TokenGrant } from '../tokens.js';

export interface RefreshTokenExchange {
  readonly refreshToken: string | undefined;
  readonly scope: string | undefined;
}

/** RFC 6749 §6: the requested scope must not exceed the original grant; omitted means "the same". */
function narrowedScope(granted: string | null, requested: string | undefined): string | null {
  if (requested === undefined) return granted;
  const allowed = new Set(scopeTokens(granted));
  const asked = scopeTokens(requested);
  // RFC 6749 §6: "MUST NOT include any scope not originally granted by the resource owner".
  const extra = asked.find((token) => !allowed.has(token));
  if (extra !== undefined) throw new InvalidScope(`the scope '${extra}' was not granted originally`);
  return asked.length === 0 ? granted : [...new Set(asked)].join(' ');
}

export async function exchangeRefreshToken(
  ctx: AppContext,
  client: ClientRecord,
  exchange: RefreshTokenExchange,
): Promise<IssuedTokens> {
  // RFC 6749 §6: refresh_token is REQUIRED.
  if (exchange.refreshToken === undefined) throw new InvalidRequest('refresh_token is required');

  const oldHash = credentialKey(exchange.refreshToken);
  const old = await ctx.store.tokens.findRefreshToken(oldHash);
  const now = ctx.clock.now();

  // RFC 6749 §5.2 invalid_grant: the refresh token is invalid.
  if (!old) throw new InvalidGrant('the refresh token is invalid');
  // RFC 6749 §6: "validate the refresh token … and ensure that the refresh token was issued to the
  // authenticated client". Same words as unknown: no hints about other clients' tokens.
  if (old.clientId !== client.clientId) throw new InvalidGrant('the refresh token is invalid');
  // RFC 9700 §4.14.2: a rotated refresh token used again means it leaked: revoke the whole family.
  if (old.rotatedAt !== null) {
    await ctx.store.tokens.revokeFamily(old.familyId);
    throw new InvalidGrant('the refresh token was already used; every token of this grant is revoked');
  }
  // RFC 6749 §5.2 invalid_grant: "revoked".
  if (old.revoked) throw new InvalidGrant('the refresh token has been revoked');
  // RFC 6749 §5.2 invalid_grant: "expired".
  if (old.expiresAt <= now) throw new InvalidGrant('the refresh token has expired');
  // docs/interface.md#openid-connect: an admin can switch refresh tokens off per app; RFC 6749 §5.2 unauthorized_client.
  if (!client.allowRefreshTokens) {
    throw new UnauthorizedClient('refresh tokens are switched off for this client');
  }
  const user = await ctx.store.users.find(old.uin);
  // docs/interface.md#resources: a disabled (or expired) user's tokens stop working.
  if (!user || !isActiveUser(user, now))
    throw new InvalidGrant('the user who granted this refresh token is disabled');
  // docs/interface.md#people-groups-and-audit: a user no longer in the app's allowed groups gets no tokens.
  if (!groupsAllow(client.allowedGroups, user.groups)) {
    throw new InvalidGrant(
      'the user who granted this refresh token is not in the groups allowed to use this app',
    );
  }

  const scope = narrowedScope(old.scope, exchange.scope);
  const grant: TokenGrant = {
    clientId: client.clientId,
    uin: old.uin,
    scope: old.scope,
    codeHash: old.codeHash,
    amr: old.amr,
    sid: old.sid,
  };
  const access = mintAccessToken(ctx, { ...grant, scope }, old.familyId, now);
  // RFC 6749 §6: the new refresh token keeps the scope of the one it replaces.
  const refresh = mintRefreshToken(ctx, grant, old.familyId, old.authTime, now);

  // Atomic rotation: if another request rotated it first, this one is the replay.
  if (!(await ctx.store.tokens.rotateRefreshToken(oldHash, now, access.record, refresh.record))) {
    await ctx.store.tokens.revokeFamily(old.familyId);
    throw new InvalidGrant('the refresh token was already used; every token of this grant is revoked');
  }

  return {
    accessToken: access.value,
    refreshToken: refresh.value,
    scope,
    user,
    clientId: client.clientId,
    authTime: old.authTime,
    amr: old.amr,
    // OIDC Core §12.2: an id_token from a refresh carries no nonce.
    nonce: null,
    issuedAt: now,
    sid: old.sid,
  };
}
