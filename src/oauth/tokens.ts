/**
 * Access and refresh tokens: opaque credentials (credentials.ts) stored only under their key (docs/interface.md#resources), and
 * the RFC 6749 §5.1 token response built from them.
 */
import type { AppContext } from '../app-context.js';
import { randomToken } from '../domain/crypto.js';
import type { AccessTokenRecord, RefreshTokenRecord, TokenSubject } from '../storage/store.js';
import { credentialKey, newCredential } from './credentials.js';
import { signIdToken } from './id-token.js';
import { hasScope } from './scopes.js';

/** What every token issued from one grant shares. */
export interface TokenGrant {
  readonly clientId: string;
  readonly uin: number;
  readonly scope: string | null;
  /** The code the grant started from, so a replayed code revokes everything (RFC 9700 §4.2.4). */
  readonly codeHash: string | null;
  /** How the user signed in (RFC 8176), kept with refresh tokens for the id_tokens of later refreshes. */
  readonly amr: readonly string[] | null;
  /** The browser session the grant started in (the id_token's `sid`). */
  readonly sid: string | null;
}

export interface Minted<T> {
  /** The plaintext, shown to the client once. */
  readonly value: string;
  /** What the database keeps. */
  readonly record: T;
}

/** What an access and a refresh token record both take from their grant: all of an access token's. */
type GrantedToken<F extends string | null> = Omit<AccessTokenRecord, 'familyId'> & { readonly familyId: F };

/**
 * A new credential issued at `now` for `grant` in `familyId`, stored under its key and valid `ttlSeconds`.
 * The record is one object literal, not spread into another: this runs on every code exchange.
 */
function mintForGrant<F extends string | null>(
  grant: TokenGrant,
  familyId: F,
  now: number,
  ttlSeconds: number,
  value = newCredential(now),
): Minted<GrantedToken<F>> {
  return {
    value,
    record: {
      tokenHash: credentialKey(value),
      clientId: grant.clientId,
      uin: grant.uin,
      scope: grant.scope,
      codeHash: grant.codeHash,
      familyId,
      createdAt: now,
      expiresAt: now + ttlSeconds * 1000,
      revoked: false,
    },
  };
}

export function mintAccessToken(
  ctx: AppContext,
  grant: TokenGrant,
  familyId: string | null,
  now: number,
  /** The credential, when derived rather than random (a code exchange's, ./grants/authorization-code.ts). */
  value?: string,
): Minted<AccessTokenRecord> {
  return mintForGrant(grant, familyId, now, ctx.config.accessTokenTtl, value);
}

export function mintRefreshToken(
  ctx: AppContext,
  grant: TokenGrant,
  familyId: string,
  authTime: number,
  now: number,
  derived?: string,
): Minted<RefreshTokenRecord> {
  const { value, record } = mintForGrant(grant, familyId, now, ctx.config.refreshTokenTtl, derived);
  return { value, record: { ...record, authTime, rotatedAt: null, amr: grant.amr, sid: grant.sid } };
}

/** A new refresh-token family (RFC 9700 §4.14.2): every rotation of one grant shares it. */
export function newFamilyId(): string {
  return randomToken(16);
}

/** What a grant handler hands back to the endpoint that answers it. */
export interface IssuedTokens {
  readonly accessToken: string;
  readonly refreshToken: string | undefined;
  /** The scope the access token carries (null when none was asked for). */
  readonly scope: string | null;
  readonly user: TokenSubject;
  readonly clientId: string;
  /** Epoch ms of the sign-in, for the id_token's auth_time. */
  readonly authTime: number;
  /** The sign-in's authentication methods, for the id_token's amr (null: not recorded). */
  readonly amr: readonly string[] | null;
  readonly nonce: string | null;
  readonly issuedAt: number;
  /** The browser session the grant started in, if known. */
  readonly sid: string | null;
}

/** What a code exchange hands back: its tokens, and the code redeemed for them by its credentialKey. */
export interface CodeExchangeTokens extends IssuedTokens {
  readonly codeHash: string;
}

/** RFC 6749 §5.1 (and OIDC Core §3.1.3.3) successful token response. */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly refresh_token?: string;
  readonly scope?: string;
  readonly id_token?: string;
}

export async function tokenResponse(ctx: AppContext, issued: IssuedTokens): Promise<TokenResponse> {
  const response: { -readonly [K in keyof TokenResponse]: TokenResponse[K] } = {
    access_token: issued.accessToken,
    token_type: 'Bearer',
    expires_in: ctx.config.accessTokenTtl,
  };
  if (issued.refreshToken !== undefined) response.refresh_token = issued.refreshToken;
  // RFC 6749 §5.1: scope is echoed when the client asked for one (legacy clients ask for none and get none).
  if (issued.scope !== null) response.scope = issued.scope;
  // OIDC Core §3.1.3.3: an `openid` request gets an id_token beside the access token.
  if (hasScope(issued.scope, 'openid')) {
    // Back-Channel Logout 1.0 §2.1: the app is told when this session ends.
    if (issued.sid !== null) {
      await ctx.store.logouts.recordIdToken(issued.sid, issued.clientId, issued.user.uin, issued.issuedAt);
    }
    response.id_token = await signIdToken(ctx, {
      sid: issued.sid,
      user: issued.user,
      clientId: issued.clientId,
      authTime: issued.authTime,
      amr: issued.amr,
      nonce: issued.nonce,
      accessToken: issued.accessToken,
      issuedAt: issued.issuedAt,
      scope: issued.scope,
    });
  }
  return response;
}

/** RFC 6749 §5.1: "Cache-Control: no-store" and "Pragma: no-cache" on every answer carrying tokens. */
export const NO_STORE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  pragma: 'no-cache',
};
