import type { RoutePlugin } from '../../route-plugin.js';
import { appInfoRoutes } from './app-info.js';
import { authorizeRoutes } from './authorize.js';
import { legacyGetAccessTokenRoutes } from './get-access-token.js';
import { legacyGetUserInfoRoutes } from './get-user-info.js';
import { introspectRoutes } from './introspect.js';
import { endSessionRoutes } from './logout.js';
import { revokeRoutes } from './revoke.js';
import { tokenRoutes } from './token.js';
import { userInfoRoutes } from './userinfo.js';
import { wellKnownRoutes } from './well-known.js';

/** The OAuth 2.0 / OpenID Connect endpoints (docs/interface.md), one module per endpoint. */
export const oauth2Routes: RoutePlugin = async (app, { ctx }) => {
  // docs/interface.md#authorization-page, #browser-session-api: the authorization endpoint and the consent
  // page's calls.
  await app.register(authorizeRoutes, { ctx });
  await app.register(appInfoRoutes, { ctx });
  // docs/interface.md#token-endpoint: standard token exchange and refresh.
  await app.register(tokenRoutes, { ctx });
  // docs/interface.md#legacy-token-endpoint, #legacy-user-information: the previous system's interface, kept
  // exactly.
  await app.register(legacyGetAccessTokenRoutes, { ctx });
  await app.register(legacyGetUserInfoRoutes, { ctx });
  // docs/interface.md#openid-connect, #revocation-and-introspection: OpenID Connect and
  // the RFC 7009 / 7662 / 8414 extras.
  await app.register(userInfoRoutes, { ctx });
  await app.register(revokeRoutes, { ctx });
  await app.register(introspectRoutes, { ctx });
  await app.register(wellKnownRoutes, { ctx });
  // OpenID Connect RP-Initiated Logout 1.0 (docs/interface.md#sessions-and-sign-out).
  await app.register(endSessionRoutes, { ctx });
};
