import type { AppContext } from '../../app-context.js';
import { InvalidClientOrRedirect } from '../errors.js';
import { deliveryResponseMode } from './check-response-mode.js';
import type { AuthorizationParams, VerifiedRedirect } from './request.js';

/**
 * The first check, and the only one that may not redirect: until the client and its redirect URI are known
 * good, an error is shown to the user, never sent to a URI (RFC 6749 §4.1.2.1, RFC 9700 §2.1, docs/interface.md#authorization-page).
 */
export async function checkClient(ctx: AppContext, params: AuthorizationParams): Promise<VerifiedRedirect> {
  // RFC 6749 §4.1.1: client_id is REQUIRED.
  if (!params.client_id) throw new InvalidClientOrRedirect('client_id is missing', 'unknown_client');
  const app = await ctx.store.apps.find(params.client_id);
  // RFC 6749 §4.1.2.1: "missing, invalid, or mismatching … or if the client identifier is missing or invalid".
  if (!app) throw new InvalidClientOrRedirect('unknown or disabled client', 'unknown_client');
  if (app.disabled)
    throw new InvalidClientOrRedirect('unknown or disabled client', 'disabled_client', app.name);
  // docs/interface.md#command-line: an imported app without redirect URIs refuses authorization until an admin registers some.
  if (app.redirectUris.length === 0) {
    throw new InvalidClientOrRedirect(
      'this app has no registered redirect URI; an administrator must register one',
      'unregistered_redirect_uri',
      app.name,
    );
  }
  // docs/interface.md#authorization-page: redirect_uri is required (every legacy client sends it).
  if (!params.redirect_uri)
    throw new InvalidClientOrRedirect('redirect_uri is missing', 'unregistered_redirect_uri', app.name);
  // RFC 9700 §2.1 / §4.1.3: exact string matching against the registered URIs; no open redirect.
  if (!app.redirectUris.includes(params.redirect_uri)) {
    throw new InvalidClientOrRedirect(
      'redirect_uri is not registered for this app',
      'unregistered_redirect_uri',
      app.name,
    );
  }
  // RFC 6749 §4.1.2: state is echoed exactly as sent, whenever it was sent. The response mode is known from
  // here on, so that an error found by a later check reaches the client the way it asked for.
  return {
    app,
    redirectUri: params.redirect_uri,
    state: params.state,
    responseMode: deliveryResponseMode(params),
  };
}
