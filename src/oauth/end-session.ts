/**
 * OpenID Connect RP-Initiated Logout 1.0 (docs/interface.md#sessions-and-sign-out): which app is asking, where
 * the browser may go afterwards, and whether the sign-out may happen without asking the user.
 */
import { compactVerify, createLocalJWKSet, type JWK } from 'jose';
import type { AppContext } from '../app-context.js';
import { appendParameters } from '../domain/redirect-uris.js';
import type { END_SESSION_PARAMETERS } from '../shared/logout.js';
import type { LogoutRefusal } from '../shared/pages.js';
import { publicJwks } from './signing-keys.js';

/** The logout request's parameters (RP-Initiated Logout 1.0 §2), not yet validated: strings when sent. */
export type EndSessionParams = {
  readonly [P in (typeof END_SESSION_PARAMETERS)[number]]?: string | undefined;
};

/** What a valid id_token_hint says. */
export interface IdTokenHint {
  readonly sub: string;
  readonly clientId: string;
  readonly sid: string | undefined;
}

/**
 * RP-Initiated Logout 1.0 §2: the id_token_hint must be an ID Token this OP issued — its signature verified
 * with one of our keys, `iss` ours — and "the OP need not be concerned that it has expired": an expired one is
 * still a good hint. Answers undefined for anything else.
 */
export async function verifyIdTokenHint(
  ctx: AppContext,
  hint: string | undefined,
): Promise<IdTokenHint | undefined> {
  if (hint === undefined || hint === '' || hint.length > 8192) return undefined;
  let payload: Record<string, unknown>;
  try {
    const keys = createLocalJWKSet((await publicJwks(ctx)) as { keys: JWK[] });
    const verified = await compactVerify(hint, keys);
    if (verified.protectedHeader.typ !== undefined && verified.protectedHeader.typ !== 'JWT')
      return undefined;
    payload = JSON.parse(new TextDecoder().decode(verified.payload)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (payload.iss !== ctx.config.issuer || typeof payload.sub !== 'string') return undefined;
  const aud = Array.isArray(payload.aud) && payload.aud.length === 1 ? payload.aud[0] : payload.aud;
  if (typeof aud !== 'string') return undefined;
  return { sub: payload.sub, clientId: aud, sid: typeof payload.sid === 'string' ? payload.sid : undefined };
}

/**
 * RP-Initiated Logout 1.0 §2: the app is the one named by client_id or by the hint's `aud` — and when both are
 * given they must agree; otherwise no app is known and the browser is sent nowhere.
 */
export function askingClientId(params: EndSessionParams, hint: IdTokenHint | undefined): string | undefined {
  const clientId = params.client_id === '' ? undefined : params.client_id;
  if (clientId !== undefined && hint !== undefined && hint.clientId !== clientId) return undefined;
  return clientId ?? hint?.clientId;
}

/**
 * RP-Initiated Logout 1.0 §3: the browser goes to post_logout_redirect_uri (with `state`) only when it is
 * registered for the asking app, exactly; never anywhere else.
 */
export async function postLogoutRedirect(
  ctx: AppContext,
  clientId: string | undefined,
  params: EndSessionParams,
): Promise<string | undefined> {
  const uri = params.post_logout_redirect_uri;
  if (clientId === undefined || uri === undefined || uri === '') return undefined;
  const app = await ctx.store.apps.find(clientId);
  if (!app || app.disabled || !app.postLogoutRedirectUris.includes(uri)) return undefined;
  return appendParameters(uri, { state: params.state === '' ? undefined : params.state });
}

/**
 * Whether the logout request must be refused rather than carried out (docs/security.md): the user is neither
 * signed out nor sent anywhere, and the page says why. RP-Initiated Logout 1.0 §2: an id_token_hint that was
 * sent must be one this OP issued, and when client_id is sent too it "MUST" match the hint's audience; §3: a
 * post_logout_redirect_uri that was sent must be registered for the app, exactly. Signing out silently and
 * dropping the URI would let anyone who holds an id_token sign the user out while the app believes it is
 * being answered.
 */
export async function endSessionRefusal(
  ctx: AppContext,
  params: EndSessionParams,
  hint: IdTokenHint | undefined,
): Promise<LogoutRefusal | undefined> {
  if (params.id_token_hint !== undefined && params.id_token_hint !== '' && hint === undefined) {
    return 'invalid_id_token_hint';
  }
  const clientId = params.client_id === '' ? undefined : params.client_id;
  if (clientId !== undefined && hint !== undefined && hint.clientId !== clientId) return 'client_mismatch';
  if (params.post_logout_redirect_uri === undefined || params.post_logout_redirect_uri === '')
    return undefined;
  const redirect = await postLogoutRedirect(ctx, askingClientId(params, hint), params);
  return redirect === undefined ? 'unregistered_post_logout_redirect_uri' : undefined;
}
