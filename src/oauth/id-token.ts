/**
 * OpenID Connect Core §2 ID Token: `iss`, `sub` (the uin as a string), `aud`, `exp`, `iat`, `auth_time`,
 * `nonce` (when the authentication request carried one), `at_hash`, plus campus-sso's `uin` (integer) and
 * `user_group` (docs/interface.md#openid-connect). Signed with RS256 (OIDC Core §15.1), see signing-keys.ts.
 */
import { SignJWT } from 'jose';
import type { AppContext } from '../app-context.js';
import { sha256 } from '../domain/crypto.js';
import type { TokenSubject } from '../storage/store.js';
import { profileClaims } from './profile-claims.js';
import { signingKey } from './signing-keys.js';

export interface IdTokenInput {
  readonly user: TokenSubject;
  readonly clientId: string;
  /** Epoch ms of the sign-in. */
  readonly authTime: number;
  /** RFC 8176 authentication methods of the sign-in (null: not recorded, the claim is left out). */
  readonly amr: readonly string[] | null;
  readonly nonce: string | null;
  /** The access token issued beside it, for `at_hash`. */
  readonly accessToken: string;
  /** Epoch ms. */
  readonly issuedAt: number;
  /** The granted scope, which decides the profile claims. */
  readonly scope?: string | null;
  /** The browser session (OpenID Connect Back-Channel Logout 1.0 §2.1 `sid`), when known. */
  readonly sid?: string | null;
}

/**
 * OIDC Core §3.1.3.6: at_hash is the base64url of the left half of the hash of the access token's ASCII,
 * with the hash of the signing algorithm (RS256 and ES256 → SHA-256).
 */
export function accessTokenHash(accessToken: string): string {
  const digest = sha256(accessToken);
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

const seconds = (epochMs: number): number => Math.floor(epochMs / 1000);

export async function signIdToken(ctx: AppContext, input: IdTokenInput): Promise<string> {
  const key = await signingKey(ctx);
  const iat = seconds(input.issuedAt);
  const claims: Record<string, unknown> = {
    auth_time: seconds(input.authTime),
    at_hash: accessTokenHash(input.accessToken),
    uin: input.user.uin,
    user_group: input.user.userGroup,
    // docs/interface.md#people-groups-and-audit: what the scope releases of the profile.
    ...profileClaims(input.user, input.scope ?? null),
  };
  // OIDC Core §2: nonce is present exactly when the authentication request carried one.
  if (input.nonce !== null) claims.nonce = input.nonce;
  // OIDC Core §2 amr (RFC 8176 values): how the user signed in (docs/interface.md#second-factor).
  if (input.amr !== null && input.amr.length > 0) claims.amr = [...input.amr];
  if (input.sid) claims.sid = input.sid;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setIssuer(ctx.config.issuer)
    .setSubject(String(input.user.uin))
    .setAudience(input.clientId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ctx.config.accessTokenTtl)
    .sign(key.privateKey);
}
