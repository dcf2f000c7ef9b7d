/**
 * The authorization-code grant (RFC 6749 §4.1.3), shared by the standard token endpoint (docs/interface.md#token-endpoint) and the
 * legacy JSON one (docs/interface.md#legacy-token-endpoint). Read top to bottom: each requirement is one `if`.
 */
import type { AppContext } from '../../app-context.js';
import type { Config } from '../../config/config.js';
import { loadDerivedKey } from '../../domain/secret-box.js';
import { isActiveUser } from '../../domain/users.js';
import { groupsAllow } from '../../shared/people.js';
import { isDatabaseUnavailable } from '../../storage/database-errors.js';
import { credentialKey, derivedCredential } from '../credentials.js';
import type { AuthorizationCodeRecord, ClientRecord, TokenSubject } from '../../storage/store.js';
import { InvalidGrant, InvalidRequest } from '../errors.js';
import { PKCE_VALUE, verifierMatches } from '../pkce.js';
import { hasScope } from '../scopes.js';
import { RETRY_WINDOW_MS, undeliveredExchanges } from '../undelivered-exchanges.js';
import {
  type IssuedTokens,
  mintAccessToken,
  mintRefreshToken,
  newFamilyId,
  type TokenGrant,
} from '../tokens.js';

export interface AuthorizationCodeExchange {
  readonly code: string | undefined;
  readonly redirectUri: string | undefined;
  readonly codeVerifier: string | undefined;
}

export interface AuthorizationCodeOptions {
  /**
   * RFC 6749 §4.1.3: redirect_uri is required when the authorization request carried one (at campus-sso it
   * always does). The legacy endpoint (docs/interface.md#legacy-token-endpoint) never sent it and is exempt.
   */
  readonly checkRedirectUri: boolean;
  /** The legacy endpoint answers only an access token, so it issues nothing else. */
  readonly accessTokenOnly: boolean;
}

/** The key the tokens of an exchange are derived with (HKDF from the key-encryption key), read once. */
const exchangeKeys = new WeakMap<Config, Promise<Buffer>>();
function exchangeKey(ctx: AppContext): Promise<Buffer> {
  let key = exchangeKeys.get(ctx.config);
  if (!key) {
    key = loadDerivedKey(ctx.config.secretKey, 'authorization code exchange tokens');
    key.catch(() => exchangeKeys.delete(ctx.config));
    exchangeKeys.set(ctx.config, key);
  }
  return key;
}

export async function exchangeAuthorizationCode(
  ctx: AppContext,
  client: ClientRecord,
  exchange: AuthorizationCodeExchange,
  options: AuthorizationCodeOptions,
): Promise<IssuedTokens> {
  // RFC 6749 §4.1.3: code is REQUIRED.
  if (exchange.code === undefined) throw new InvalidRequest('code is required');
  // RFC 6749 §4.1.3: redirect_uri is REQUIRED if it was included in the authorization request.
  if (options.checkRedirectUri && exchange.redirectUri === undefined) {
    throw new InvalidRequest('redirect_uri is required: it was part of the authorization request');
  }

  const codeHash = credentialKey(exchange.code);
  // The code and the user who granted it, read together (one round trip instead of two on PostgreSQL).
  const found = await ctx.store.codes.findWithGrantor(codeHash);
  const now = ctx.clock.now();

  // RFC 6749 §5.2 invalid_grant: "The provided authorization grant … is invalid".
  if (!found) throw new InvalidGrant('the authorization code is invalid');
  const { code, user } = found;
  // RFC 6749 §4.1.3: "ensure that the authorization code was issued to the authenticated confidential client".
  // Same words as an unknown code: another client learns nothing about codes that are not its own.
  if (code.clientId !== client.clientId) throw new InvalidGrant('the authorization code is invalid');
  // RFC 6749 §4.1.2 / RFC 9700 §4.2.4: a code used more than once is refused, and every token issued from it
  // is revoked (checked before expiry: the tokens outlive the code).
  if (code.usedAt !== null) {
    // Unless this instance knows the exchange's answer was not delivered, and this is that exchange again.
    const again = await answerAgain(ctx, client, exchange.code, exchange, options, code, user, now);
    if (again) return again;
    await ctx.store.tokens.revokeByCode(codeHash);
    throw new InvalidGrant(
      'the authorization code has already been used; the tokens issued from it are revoked',
    );
  }
  // RFC 6749 §4.1.2: codes are short-lived (docs/interface.md#resources: 10 minutes).
  if (code.expiresAt <= now) throw new InvalidGrant('the authorization code has expired');
  // RFC 6749 §4.1.3: "if included ensure that their values are identical".
  if (options.checkRedirectUri && exchange.redirectUri !== code.redirectUri) {
    throw new InvalidGrant('redirect_uri does not match the one in the authorization request');
  }

  if (code.codeChallenge !== null && code.codeChallengeMethod !== null) {
    // RFC 7636 §4.6: a code issued with a challenge needs the verifier.
    if (exchange.codeVerifier === undefined) {
      throw new InvalidGrant('code_verifier is required: the authorization request carried a code_challenge');
    }
    // RFC 7636 §4.1: code-verifier = 43*128unreserved.
    if (!PKCE_VALUE.test(exchange.codeVerifier)) {
      throw new InvalidGrant(
        'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 section 4.1)',
      );
    }
    // RFC 7636 §4.6: "If the values are not equal, an error response indicating invalid_grant MUST be returned."
    if (!verifierMatches(exchange.codeVerifier, code.codeChallenge, code.codeChallengeMethod)) {
      throw new InvalidGrant('code_verifier does not match the code_challenge');
    }
  } else if (exchange.codeVerifier !== undefined) {
    // RFC 9700 §4.8.2: a verifier for a code issued without a challenge is a PKCE downgrade attempt.
    throw new InvalidGrant('code_verifier was sent, but the authorization request carried no code_challenge');
  }

  // A user disabled (or whose account expired) since signing in gets no tokens (docs/interface.md#resources).
  if (!user || !isActiveUser(user, now)) throw new InvalidGrant('the user who granted this code is disabled');
  // docs/interface.md#people-groups-and-audit: a user no longer in the app's allowed groups gets no tokens.
  if (!groupsAllow(client.allowedGroups, user.groups)) {
    throw new InvalidGrant('the user who granted this code is not in the groups allowed to use this app');
  }

  const grant: TokenGrant = {
    clientId: client.clientId,
    uin: code.uin,
    scope: code.scope,
    codeHash,
    amr: code.amr,
    sid: code.sid,
  };
  // docs/interface.md#openid-connect / OIDC Core §11: offline_access gets a refresh token, unless an admin switched them off.
  const withRefreshToken =
    !options.accessTokenOnly && client.allowRefreshTokens && hasScope(code.scope, 'offline_access');
  const familyId = withRefreshToken ? newFamilyId() : null;
  // Derived from the code, so a retry of this exchange can answer them again (answerAgain).
  const key = await exchangeKey(ctx);
  const access = mintAccessToken(
    ctx,
    grant,
    familyId,
    now,
    derivedCredential(key, 'access', exchange.code, now),
  );
  const refresh =
    familyId === null
      ? undefined
      : mintRefreshToken(
          ctx,
          grant,
          familyId,
          code.authTime,
          now,
          derivedCredential(key, 'refresh', exchange.code, now),
        );

  // RFC 6749 §4.1.2: single use, atomically: a concurrent replay loses here and revokes what the winner got.
  let redeemed: boolean;
  try {
    redeemed = await ctx.store.tokens.redeemCode(codeHash, now, access.record, refresh?.record);
  } catch (error) {
    // The commit may have happened, and the answer will be a 503: the client's retry may find the code used.
    if (isDatabaseUnavailable(error)) undeliveredExchanges(ctx).record(codeHash, now);
    throw error;
  }
  if (!redeemed) {
    await ctx.store.tokens.revokeByCode(codeHash);
    throw new InvalidGrant(
      'the authorization code has already been used; the tokens issued from it are revoked',
    );
  }
  // A retry of a 503 whose commit had not happened: nothing more to retry.
  undeliveredExchanges(ctx).forget(codeHash);

  return issuedTokens(code, user, client, access.value, refresh?.value, now);
}

function issuedTokens(
  code: AuthorizationCodeRecord,
  user: TokenSubject,
  client: ClientRecord,
  accessToken: string,
  refreshToken: string | undefined,
  issuedAt: number,
): IssuedTokens {
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
  };
}

/** RFC 7636 §4.6 and RFC 9700 §4.8.2 as one answer: the verifier is the one the code was issued for. */
function verifierFits(code: AuthorizationCodeRecord, verifier: string | undefined): boolean {
  if (code.codeChallenge === null || code.codeChallengeMethod === null) return verifier === undefined;
  return (
    verifier !== undefined &&
    PKCE_VALUE.test(verifier) &&
    verifierMatches(verifier, code.codeChallenge, code.codeChallengeMethod)
  );
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
async function answerAgain(
  ctx: AppContext,
  client: ClientRecord,
  presented: string,
  exchange: AuthorizationCodeExchange,
  options: AuthorizationCodeOptions,
  code: AuthorizationCodeRecord,
  user: TokenSubject | undefined,
  now: number,
): Promise<IssuedTokens | undefined> {
  const usedAt = code.usedAt;
  if (!options.checkRedirectUri || usedAt === null || now - usedAt > RETRY_WINDOW_MS) return undefined;
  if (!(await undeliveredExchanges(ctx).take(code.codeHash, now))) return undefined;
  if (exchange.redirectUri !== code.redirectUri || !verifierFits(code, exchange.codeVerifier))
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
