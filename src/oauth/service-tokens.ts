/**
 * Service tokens at the places that read tokens (docs/interface.md#service-accounts-client-credentials): the
 * principal a service token stands for (the admin API's gate asks here), and its answers at introspection
 * (RFC 7662) and revocation (RFC 7009). A service token lives in its own table, so user information, sign-out
 * and consents, which read only user tokens, never see one.
 */
import type { AppContext } from '../app-context.js';
import type { ActiveServiceToken, ClientRecord } from '../storage/store.js';
import { credentialKey } from './credentials.js';
import { InvalidRequest } from './errors.js';
import { scopeTokens } from './scopes.js';

/** An app acting for itself with a client_credentials token. */
export interface ServicePrincipal {
  clientId: string;
  scopes: readonly string[];
}

/** The token's scopes that its app still allows: a scope taken off the app is off its tokens at once. */
function effectiveScopes(active: ActiveServiceToken): string[] {
  const allowed = new Set(active.allowedScopes);
  return scopeTokens(active.token.scope).filter((scope) => allowed.has(scope));
}

function findActiveServiceToken(ctx: AppContext, token: string): Promise<ActiveServiceToken | undefined> {
  return ctx.store.serviceTokens.findActive(credentialKey(token), ctx.clock.now());
}

/**
 * The app a bearer token was issued to by the client_credentials grant, with the scopes it may use now; null
 * when the token is unknown, expired or revoked, is not a client_credentials token (a user's token never is),
 * or its app was deleted, is disabled, or no longer has client_credentials switched on.
 */
export async function findServicePrincipal(
  ctx: AppContext,
  accessToken: string,
): Promise<ServicePrincipal | null> {
  const active = await findActiveServiceToken(ctx, accessToken);
  if (!active) return null;
  return { clientId: active.token.clientId, scopes: effectiveScopes(active) };
}

const seconds = (epochMs: number): number => Math.floor(epochMs / 1000);

/** RFC 7662 §2.2 for a service token: `client_id`, `scope` and times, and no `sub` (there is no user). */
export interface ServiceTokenIntrospection {
  readonly active: true;
  readonly scope: string;
  readonly client_id: string;
  readonly token_type: 'Bearer';
  readonly exp: number;
  readonly iat: number;
}

/**
 * RFC 7662 for a service token: undefined when `presented` is none that is active (introspection then looks
 * elsewhere), `{active:false}` when it is another client's (RFC 7662 §4: no help to token scanning).
 */
export async function introspectServiceToken(
  ctx: AppContext,
  client: ClientRecord,
  presented: string,
): Promise<ServiceTokenIntrospection | { readonly active: false } | undefined> {
  const active = await findActiveServiceToken(ctx, presented);
  if (!active) return undefined;
  if (active.token.clientId !== client.clientId) return { active: false };
  const scopes = effectiveScopes(active);
  // Every scope it had was taken off its app: it can do nothing any more.
  if (scopes.length === 0) return { active: false };
  return {
    active: true,
    scope: scopes.join(' '),
    client_id: active.token.clientId,
    token_type: 'Bearer',
    exp: seconds(active.token.expiresAt),
    iat: seconds(active.token.createdAt),
  };
}

/** RFC 7009 for a service token: answers false when `presented` is no service token at all. */
export async function revokeServiceToken(
  ctx: AppContext,
  client: ClientRecord,
  presented: string,
): Promise<boolean> {
  const tokenHash = credentialKey(presented);
  const token = await ctx.store.serviceTokens.find(tokenHash);
  if (!token) return false;
  // RFC 7009 §2.1: "verifies whether the token was issued to the client making the revocation request".
  if (token.clientId !== client.clientId) throw new InvalidRequest('the token was not issued to this client');
  await ctx.store.serviceTokens.revoke(tokenHash);
  return true;
}
