/**
 * The authorization-code grant's retry of an exchange whose answer was never delivered, and what it shares
 * with the exchange (authorization-code.ts): the key the tokens are derived with, and the answer's shape.
 */
import type { AppContext } from '../../app-context.js';
import type { Config } from '../../config/config.js';
import { loadDerivedKey } from '../../domain/secret-box.js';
import { isActiveUser } from '../../domain/users.js';
import type { AuthorizationCodeRecord, ClientRecord, TokenSubject } from '../../storage/store.js';
import { credentialKey, derivedCredential } from '../credentials.js';
import { verifierProblem } from '../pkce.js';
import type { CodeExchangeTokens } from '../tokens.js';
import { RETRY_WINDOW_MS, undeliveredExchanges } from '../undelivered-exchanges.js';
import type { AuthorizationCodeExchange, AuthorizationCodeOptions } from './authorization-code-request.js';

/** The key the tokens of an exchange are derived with (HKDF from the key-encryption key), read once. */
const exchangeKeys = new WeakMap<Config, Promise<Buffer>>();
export function exchangeKey(ctx: AppContext): Promise<Buffer> {
  let key = exchangeKeys.get(ctx.config);
  if (!key) {
    key = loadDerivedKey(ctx.config.secretKey, 'authorization code exchange tokens');
    key.catch(() => exchangeKeys.delete(ctx.config));
    exchangeKeys.set(ctx.config, key);
  }
  return key;
}

export function issuedTokens(
  code: AuthorizationCodeRecord,
  user: TokenSubject,
  client: ClientRecord,
  accessToken: string,
  refreshToken: string | undefined,
  issuedAt: number,
): CodeExchangeTokens {
  return {
    accessToken,
    refreshToken,
    scope: code.scope,
    user,
    clientId: client.clientId,
    authTime: code.authTime,
    amr: code.amr,
    nonce: code.nonce,
    issuedAt,
    sid: code.sid,
    codeHash: code.codeHash,
  };
}

/**
 * A code exchange that committed but whose answer the client never got (the database failed around the
 * commit, or the connection closed before the answer was sent) is retried by the client and finds its code
 * used. RFC 6749 §4.1.2 refuses a code used twice and revokes its tokens: a second use is either a replay or
 * the proof that the first answer leaked. Neither holds when this instance knows the first answer was never
 * delivered (UndeliveredExchanges); then the same exchange (same authenticated client, checked above, same
 * redirect_uri and PKCE verifier) within RETRY_WINDOW_MS, its tokens still valid and unused, gets them again
 * (docs/security.md#token-endpoint-and-grants). Anything else is refused and revokes. Not on the legacy
 * endpoint, which sends no redirect_uri.
 */
export async function answerAgain(
  ctx: AppContext,
  client: ClientRecord,
  presented: string,
  exchange: AuthorizationCodeExchange,
  options: AuthorizationCodeOptions,
  code: AuthorizationCodeRecord,
  user: TokenSubject | undefined,
  now: number,
): Promise<CodeExchangeTokens | undefined> {
  const usedAt = code.usedAt;
  if (!options.checkRedirectUri || usedAt === null || now - usedAt > RETRY_WINDOW_MS) return undefined;
  if (!(await undeliveredExchanges(ctx).take(code.codeHash, now))) return undefined;
  if (
    exchange.redirectUri !== code.redirectUri ||
    verifierProblem(code.codeChallenge, code.codeChallengeMethod, exchange.codeVerifier) !== undefined
  )
    return undefined;
  if (!user || !isActiveUser(user, now)) return undefined;
  const key = await exchangeKey(ctx);
  const accessToken = derivedCredential(key, 'access', presented, usedAt);
  const access = await ctx.store.tokens.findAccessToken(credentialKey(accessToken));
  if (!access || access.revoked || access.codeHash !== code.codeHash || access.expiresAt <= now)
    return undefined;
  let refreshToken: string | undefined;
  if (access.familyId !== null) {
    refreshToken = derivedCredential(key, 'refresh', presented, usedAt);
    const refresh = await ctx.store.tokens.findRefreshToken(credentialKey(refreshToken));
    // A refresh token already used (rotated) means the client did get the answer: this is a replay.
    if (!refresh || refresh.revoked || refresh.rotatedAt !== null) return undefined;
  }
  return issuedTokens(code, user, client, accessToken, refreshToken, usedAt);
}
