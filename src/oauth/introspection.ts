/**
 * Token introspection (RFC 7662). The client is already authenticated. Tokens of other clients look
 * inactive (RFC 7662 §4: do not help token scanning).
 */
import type { AppContext } from '../app-context.js';
import type { ClientRecord } from '../storage/store.js';
import { isActiveUser } from '../domain/users.js';
import { findActiveAccessToken } from './bearer.js';
import { credentialKey } from './credentials.js';
import { InvalidRequest } from './errors.js';
import type { TokenTypeHint } from './revocation.js';
import { type ServiceTokenIntrospection, introspectServiceToken } from './service-tokens.js';

export type IntrospectionResponse =
  | { readonly active: false }
  | ServiceTokenIntrospection
  | {
      readonly active: true;
      readonly scope?: string;
      readonly client_id: string;
      readonly token_type?: 'Bearer';
      readonly exp: number;
      readonly iat: number;
      readonly sub: string;
      readonly uin: number;
      readonly user_group: string;
    };

const INACTIVE: IntrospectionResponse = { active: false };
const seconds = (epochMs: number): number => Math.floor(epochMs / 1000);

async function introspectAccessToken(ctx: AppContext, client: ClientRecord, presented: string) {
  // Unrevoked, unexpired, user and app enabled: the same question get-user-info asks.
  const owner = await findActiveAccessToken(ctx, presented);
  if (!owner) return undefined;
  if (owner.token.clientId !== client.clientId) return INACTIVE;
  const { token, user } = owner;
  return {
    active: true as const,
    ...(token.scope !== null ? { scope: token.scope } : {}),
    client_id: token.clientId,
    token_type: 'Bearer' as const,
    exp: seconds(token.expiresAt),
    iat: seconds(token.createdAt),
    sub: String(user.uin),
    uin: user.uin,
    user_group: user.userGroup,
  };
}

async function introspectRefreshToken(ctx: AppContext, client: ClientRecord, presented: string) {
  const now = ctx.clock.now();
  const token = await ctx.store.tokens.findRefreshToken(credentialKey(presented));
  if (!token) return undefined;
  if (token.clientId !== client.clientId) return INACTIVE;
  // A rotated, revoked or expired refresh token can no longer be used.
  if (token.revoked || token.rotatedAt !== null || token.expiresAt <= now) return INACTIVE;
  // RFC 6749 §6 needs refresh tokens switched on for the client, and an enabled user
  // (docs/interface.md#resources).
  if (!client.allowRefreshTokens) return INACTIVE;
  const user = await ctx.store.users.find(token.uin);
  if (!user || !isActiveUser(user, now)) return INACTIVE;
  return {
    active: true as const,
    ...(token.scope !== null ? { scope: token.scope } : {}),
    client_id: token.clientId,
    exp: seconds(token.expiresAt),
    iat: seconds(token.createdAt),
    sub: String(user.uin),
    uin: user.uin,
    user_group: user.userGroup,
  };
}

export async function introspectToken(
  ctx: AppContext,
  client: ClientRecord,
  token: string | undefined,
  hint: TokenTypeHint | undefined,
): Promise<IntrospectionResponse> {
  // RFC 7662 §2.1: token is REQUIRED.
  if (token === undefined) throw new InvalidRequest('token is required');
  // RFC 7662 §2.1: the hint only says where to look first.
  // A service token (RFC 6749 §4.4) is an access token of its own table (./service-tokens.ts).
  const order =
    hint === 'refresh_token'
      ? [introspectRefreshToken, introspectAccessToken, introspectServiceToken]
      : [introspectAccessToken, introspectServiceToken, introspectRefreshToken];
  for (const introspect of order) {
    const answer = await introspect(ctx, client, token);
    if (answer) return answer;
  }
  // RFC 7662 §2.2: unknown, expired or revoked → {"active": false}.
  return INACTIVE;
}
