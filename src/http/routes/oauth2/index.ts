import { type RoutePlugin, registerAll } from '../../route-plugin.js';
import { appInfoRoutes } from './app-info.js';
import { authorizeRoutes } from './authorize.js';
import { deviceAuthorizationRoutes } from './device-authorization.js';
import { deviceVerificationRoutes } from './device-verification.js';
import { legacyGetAccessTokenRoutes } from './get-access-token.js';
import { legacyGetUserInfoRoutes } from './get-user-info.js';
import { introspectRoutes } from './introspect.js';
import { endSessionRoutes } from './logout.js';
import { revokeRoutes } from './revoke.js';
import { tokenRoutes } from './token.js';
import { userInfoRoutes } from './userinfo.js';
import { wellKnownRoutes } from './well-known.js';

/** The OAuth 2.0 / OpenID Connect endpoints (docs/interface.md), one module per endpoint. */
export const oauth2Routes: RoutePlugin = (app, { ctx }) =>
  registerAll(app, ctx, [
    // docs/interface.md#authorization-page, #browser-session-api: the authorization endpoint and the
    // consent page's calls.
    authorizeRoutes,
    appInfoRoutes,
    // docs/interface.md#token-endpoint: standard token exchange and refresh.
    tokenRoutes,
    // docs/interface.md#device-authorization-grant: RFC 8628, and the #/device page's calls.
    deviceAuthorizationRoutes,
    deviceVerificationRoutes,
    // docs/interface.md#legacy-token-endpoint, #legacy-user-information: the previous system's interface,
    // kept exactly.
    legacyGetAccessTokenRoutes,
    legacyGetUserInfoRoutes,
    // docs/interface.md#openid-connect, #revocation-and-introspection: OpenID Connect and the
    // RFC 7009 / 7662 / 8414 extras.
    userInfoRoutes,
    revokeRoutes,
    introspectRoutes,
    wellKnownRoutes,
    // OpenID Connect RP-Initiated Logout 1.0 (docs/interface.md#sessions-and-sign-out).
    endSessionRoutes,
  ]);
