/**
 * Token revocation (RFC 7009). The client is already authenticated; an unknown token is not an error.
 */
import type { AppContext } from '../app-context.js';
import { credentialKey } from './credentials.js';
import type { ClientRecord } from '../storage/store.js';
import { InvalidRequest } from './errors.js';
import { revokeServiceToken } from './service-tokens.js';

export type TokenTypeHint = 'access_token' | 'refresh_token';

/** RFC 7009 §2.1: an unknown hint is ignored; the search covers every token type anyway. */
export function tokenTypeHint(value: string | undefined): TokenTypeHint | undefined {
  return value === 'access_token' || value === 'refresh_token' ? value : undefined;
}

export async function revokeToken(
  ctx: AppContext,
  client: ClientRecord,
  token: string | undefined,
  hint: TokenTypeHint | undefined,
): Promise<void> {
  // RFC 7009 §2.1: token is REQUIRED.
  if (token === undefined) throw new InvalidRequest('token is required');
  const tokenHash = credentialKey(token);

  const revokeRefresh = async (): Promise<boolean> => {
    const refresh = await ctx.store.tokens.findRefreshToken(tokenHash);
    if (!refresh) return false;
    // RFC 7009 §2.1: "verifies whether the token was issued to the client making the revocation request".
    if (refresh.clientId !== client.clientId) {
      throw new InvalidRequest('the token was not issued to this client');
    }
    // RFC 7009 §2.1: revoking a refresh token SHOULD also invalidate the access tokens of the same grant.
    await ctx.store.tokens.revokeFamily(refresh.familyId);
    return true;
  };
  const revokeAccess = async (): Promise<boolean> => {
    const access = await ctx.store.tokens.findAccessToken(tokenHash);
    if (!access) return false;
    if (access.clientId !== client.clientId) {
      throw new InvalidRequest('the token was not issued to this client');
    }
    await ctx.store.tokens.revokeAccessToken(tokenHash);
    return true;
  };

  // A service token (RFC 6749 §4.4) is an access token kept in its own table (./service-tokens.ts).
  const revokeService = (): Promise<boolean> => revokeServiceToken(ctx, client, token);

  // RFC 7009 §2.1: look where the hint points first, then "extend its search across all … token types".
  const order =
    hint === 'refresh_token'
      ? [revokeRefresh, revokeAccess, revokeService]
      : [revokeAccess, revokeService, revokeRefresh];
  for (const revoke of order) if (await revoke()) break;
  // RFC 7009 §2.2: an invalid token is answered 200 like a revoked one.
}
