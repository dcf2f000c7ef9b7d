/**
 * The client_credentials grant (RFC 6749 §4.4; docs/interface.md#service-accounts-client-credentials): an app
 * whose admin switched it on gets an access token for itself, without a user, carrying scopes from its
 * allowed_scopes. No refresh token (§4.4.3: "A refresh token SHOULD NOT be included") and no id_token (there
 * is no user to say anything about). The token is stored in service_tokens, apart from every user's token.
 */
import type { AppContext } from '../../app-context.js';
import type { ClientRecord } from '../../storage/store.js';
import { credentialKey, newCredential } from '../credentials.js';
import { InvalidScope, UnauthorizedClient } from '../errors.js';
import { scopeTokens } from '../scopes.js';
import type { TokenResponse } from '../tokens.js';

export const CLIENT_CREDENTIALS_GRANT_TYPE = 'client_credentials';

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * The scope the token is granted. RFC 6749 §3.3: "If the client omits the scope parameter ..., the
 * authorization server MUST either process the request using a pre-defined default value or fail the request
 * indicating an invalid scope": the default is every scope the app is allowed, and an app allowed none fails.
 */
function grantedServiceScope(allowed: readonly string[], requested: string | undefined): string {
  if (requested === undefined) {
    if (allowed.length === 0) {
      throw new InvalidScope('no scope was requested and this client has no allowed_scopes to default to');
    }
    return allowed.join(' ');
  }
  const asked = scopeTokens(requested);
  // RFC 6749 §3.3: each scope-token is printable ASCII without space, '"' or '\'.
  if (asked.length === 0 || asked.some((token) => !SCOPE_TOKEN.test(token))) {
    throw new InvalidScope('the scope is not a list of scope tokens (RFC 6749 section 3.3)');
  }
  const permitted = new Set(allowed);
  // RFC 6749 §5.2 invalid_scope: "The requested scope is ... unknown, ... or exceeds the scope granted".
  const extra = asked.find((token) => !permitted.has(token));
  if (extra !== undefined) {
    throw new InvalidScope(`the scope '${extra}' is not among this client's allowed_scopes`);
  }
  return [...new Set(asked)].join(' ');
}

export async function grantClientCredentials(
  ctx: AppContext,
  client: ClientRecord,
  requestedScope: string | undefined,
): Promise<TokenResponse> {
  // RFC 6749 §4.4.2: "The client MUST authenticate with the authorization server": the endpoint did.
  // RFC 6749 §5.2 unauthorized_client: "not authorized to use this authorization grant type".
  if (client.clientCredentials !== true) {
    throw new UnauthorizedClient('this client is not allowed to use the client_credentials grant');
  }
  const scope = grantedServiceScope(client.allowedScopes ?? [], requestedScope);
  const now = ctx.clock.now();
  const accessToken = newCredential(now);
  await ctx.store.serviceTokens.insert({
    tokenHash: credentialKey(accessToken),
    clientId: client.clientId,
    scope,
    createdAt: now,
    expiresAt: now + ctx.config.accessTokenTtl * 1000,
    revoked: false,
  });
  // RFC 6749 §4.4.3 / §5.1: scope is sent always, since it may differ from what was asked (the default).
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ctx.config.accessTokenTtl,
    scope,
  };
}
