/**
 * OpenID Connect Back-Channel Logout 1.0 §2.4 Logout Token: a JWT signed with the id_token key, typed
 * `logout+jwt` (§2.4: explicit typing keeps it from being mistaken for an id_token), carrying `iss`, `aud`,
 * `iat`, `exp`, `jti`, `sub`, `sid` and the back-channel logout event — and never a `nonce` (§2.4: "A nonce
 * Claim MUST NOT be present").
 */
import { SignJWT } from 'jose';
import type { Config } from '../config/config.js';
import { randomToken } from '../domain/crypto.js';
import { type SigningKeyContext, signingKey } from './signing-keys.js';

/** What a logout token needs: the signing keys, and the issuer it names. */
export interface LogoutTokenContext extends SigningKeyContext {
  readonly config: SigningKeyContext['config'] & Pick<Config, 'issuer'>;
}

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** A logout token is built just before it is sent; two minutes cover the POST and clock skew. */
export const LOGOUT_TOKEN_TTL_SECONDS = 120;

export interface LogoutTokenInput {
  readonly clientId: string;
  readonly uin: number;
  readonly sid: string;
  /** Epoch ms. */
  readonly issuedAt: number;
}

export async function signLogoutToken(ctx: LogoutTokenContext, input: LogoutTokenInput): Promise<string> {
  const key = await signingKey(ctx);
  const iat = Math.floor(input.issuedAt / 1000);
  return new SignJWT({ sid: input.sid, events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'logout+jwt' })
    .setIssuer(ctx.config.issuer)
    .setSubject(String(input.uin))
    .setAudience(input.clientId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + LOGOUT_TOKEN_TTL_SECONDS)
    .setJti(randomToken(16))
    .sign(key.privateKey);
}
