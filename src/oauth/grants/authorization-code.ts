/**
 * The authorization-code grant (RFC 6749 §4.1.3), shared by the standard token endpoint (docs/interface.md#token-endpoint) and the
 * legacy JSON one (docs/interface.md#legacy-token-endpoint). Read top to bottom: each requirement is one `if`.
 */
import type { AppContext } from '../../app-context.js';
import { DEVICE_APPROVAL_REDIRECT_URI } from '../../domain/device-approvals.js';
import { isActiveUser } from '../../domain/users.js';
import { groupsAllow } from '../../shared/people.js';
import { isDatabaseUnavailable } from '../../storage/database-errors.js';
import { credentialKey, derivedCredential } from '../credentials.js';
import type {
  AuthorizationCodeRecord,
  ClientRecord,
  CodeWithGrantor,
  TokenSubject,
} from '../../storage/store.js';
import {
  type PresentedClient,
  authenticateAgainst,
  authenticatePresented,
} from '../client-authentication.js';
import { ExpiredToken, InvalidGrant, InvalidRequest } from '../errors.js';
import { verifierProblem } from '../pkce.js';
import { hasScope } from '../scopes.js';
import { undeliveredExchanges } from '../undelivered-exchanges.js';
import { answerAgain, exchangeKey, issuedTokens } from './authorization-code-retry.js';
import type { AuthorizationCodeExchange, AuthorizationCodeOptions } from './authorization-code-request.js';
import {
  type CodeExchangeTokens,
  mintAccessToken,
  mintRefreshToken,
  newFamilyId,
  type TokenGrant,
} from '../tokens.js';

export type { AuthorizationCodeExchange, AuthorizationCodeOptions } from './authorization-code-request.js';

/** The code as presented, and its credentialKey (what the database knows it by). */
interface PresentedCode {
  readonly presented: string;
  readonly codeHash: string;
}

/**
 * RFC 6749 §4.1.3: what the request must carry before the code is looked at. Answers the code it carries, or
 * the error to refuse it with (thrown after client authentication).
 */
function presentedCode(
  exchange: AuthorizationCodeExchange,
  options: AuthorizationCodeOptions,
): string | InvalidRequest {
  // RFC 6749 §4.1.3: code is REQUIRED.
  if (exchange.code === undefined) return new InvalidRequest('code is required');
  // RFC 6749 §4.1.3: redirect_uri is REQUIRED if it was included in the authorization request.
  if (options.checkRedirectUri && exchange.redirectUri === undefined) {
    return new InvalidRequest('redirect_uri is required: it was part of the authorization request');
  }
  return exchange.code;
}

/** The exchange for `client`, already authenticated. */
export async function exchangeAuthorizationCode(
  ctx: AppContext,
  client: ClientRecord,
  exchange: AuthorizationCodeExchange,
  options: AuthorizationCodeOptions,
): Promise<CodeExchangeTokens> {
  const presented = presentedCode(exchange, options);
  if (typeof presented !== 'string') throw presented;
  const codeHash = credentialKey(presented);
  // The code and the user who granted it, read together (one round trip instead of two on PostgreSQL).
  const found = await ctx.store.codes.findWithGrantor(codeHash);
  return redeem(ctx, client, { presented, codeHash }, found, exchange, options);
}

/**
 * The exchange as the token endpoints run it: the client is authenticated (RFC 6749 §3.2.1) against its app
 * as read in the same statement as the code (`codes.findForExchange`), so a normal exchange is two statements,
 * two round trips on PostgreSQL: that read and the redemption (docs/architecture.md#one-request-end-to-end). A
 * request refused before its code is read is still refused after client authentication.
 */
export async function authenticateAndExchangeCode(
  ctx: AppContext,
  credentials: PresentedClient,
  exchange: AuthorizationCodeExchange,
  options: AuthorizationCodeOptions,
): Promise<CodeExchangeTokens> {
  const presented = presentedCode(exchange, options);
  if (typeof presented !== 'string') {
    await authenticatePresented(ctx, credentials);
    throw presented;
  }
  const codeHash = credentialKey(presented);
  const read = await ctx.store.codes.findForExchange(codeHash, credentials.clientId);
  const client = authenticateAgainst(read.client, credentials);
  return redeem(ctx, client, { presented, codeHash }, read.found, exchange, options);
}

/** The grant's rules for the code presented (and its credentialKey) as read (`found`), then its redemption. */
async function redeem(
  ctx: AppContext,
  client: ClientRecord,
  { presented, codeHash }: PresentedCode,
  found: CodeWithGrantor | undefined,
  exchange: AuthorizationCodeExchange,
  options: AuthorizationCodeOptions,
): Promise<CodeExchangeTokens> {
  const now = ctx.clock.now();
  // RFC 6749 §5.2 invalid_grant: "The provided authorization grant … is invalid".
  if (!found) throw new InvalidGrant('the authorization code is invalid');
  const { code, user } = found;
  // RFC 6749 §4.1.3: "ensure that the authorization code was issued to the authenticated confidential client".
  // Same words as an unknown code: another client learns nothing about codes that are not its own.
  if (code.clientId !== client.clientId) throw new InvalidGrant('the authorization code is invalid');
  // RFC 8628 §3.5: a device approval's code is redeemed by the device grant only (not at the legacy endpoint,
  // which would skip the app's device_grant switch), and the device grant redeems nothing else.
  if ((code.redirectUri === DEVICE_APPROVAL_REDIRECT_URI) !== (options.deviceGrant === true)) {
    throw new InvalidGrant('the authorization code is invalid');
  }
  // RFC 6749 §4.1.2 / RFC 9700 §4.2.4: a code used more than once is refused, and every token issued from it
  // is revoked (checked before expiry: the tokens outlive the code).
  if (code.usedAt !== null) {
    // Unless this instance knows the exchange's answer was not delivered, and this is that exchange again.
    const again = await answerAgain(ctx, client, presented, exchange, options, code, user, now);
    if (again) return again;
    await ctx.store.tokens.revokeByCode(codeHash);
    throw new InvalidGrant(
      'the authorization code has already been used; the tokens issued from it are revoked',
    );
  }
  // RFC 6749 §4.1.2: codes are short-lived (docs/interface.md#resources: 10 minutes).
  if (code.expiresAt <= now) {
    // RFC 8628 §3.5 expired_token: approved too late for the device's next poll.
    if (options.deviceGrant === true) throw new ExpiredToken('the device_code has expired');
    throw new InvalidGrant('the authorization code has expired');
  }
  // RFC 6749 §4.1.3: "if included ensure that their values are identical".
  if (options.checkRedirectUri && exchange.redirectUri !== code.redirectUri) {
    throw new InvalidGrant('redirect_uri does not match the one in the authorization request');
  }

  checkVerifier(code, exchange.codeVerifier);

  // A user disabled (or whose account expired) since signing in gets no tokens (docs/interface.md#resources).
  if (!user || !isActiveUser(user, now)) throw new InvalidGrant('the user who granted this code is disabled');
  // docs/interface.md#people-groups-and-audit: a user no longer in the app's allowed groups gets no tokens.
  if (!groupsAllow(client.allowedGroups, user.groups)) {
    throw new InvalidGrant('the user who granted this code is not in the groups allowed to use this app');
  }

  return issue(ctx, client, { presented, codeHash }, code, user, now, options);
}

/** Mints the code's tokens and redeems it for them (RFC 6749 §4.1.2: once, atomically). */
async function issue(
  ctx: AppContext,
  client: ClientRecord,
  { presented, codeHash }: PresentedCode,
  code: AuthorizationCodeRecord,
  user: TokenSubject,
  now: number,
  options: AuthorizationCodeOptions,
): Promise<CodeExchangeTokens> {
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
  const access = mintAccessToken(ctx, grant, familyId, now, derivedCredential(key, 'access', presented, now));
  const refresh =
    familyId === null
      ? undefined
      : mintRefreshToken(
          ctx,
          grant,
          familyId,
          code.authTime,
          now,
          derivedCredential(key, 'refresh', presented, now),
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

/** RFC 7636 §4.6 and RFC 9700 §4.8.2: the verifier the code needs, and only then one; else invalid_grant. */
function checkVerifier(code: AuthorizationCodeRecord, verifier: string | undefined): void {
  const problem = verifierProblem(code.codeChallenge, code.codeChallengeMethod, verifier);
  if (problem !== undefined) throw new InvalidGrant(problem);
}
