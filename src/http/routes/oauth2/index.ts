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

/** The OAuth 2.0 / OpenID Connect endpoints (SPEC §2–6), one module per endpoint. */
export const oauth2Routes: RoutePlugin = async (app, { ctx }) => {
  // SPEC §2: the authorization endpoint and the consent page's calls.
  await app.register(authorizeRoutes, { ctx });
  await app.register(appInfoRoutes, { ctx });
  // SPEC §3, §6: standard token exchange and refresh.
  await app.register(tokenRoutes, { ctx });
  // SPEC §4, §5: the previous system's interface, kept exactly.
  await app.register(legacyGetAccessTokenRoutes, { ctx });
  await app.register(legacyGetUserInfoRoutes, { ctx });
  // SPEC §6: OpenID Connect and the RFC 7009 / 7662 / 8414 extras.
  await app.register(userInfoRoutes, { ctx });
  await app.register(revokeRoutes, { ctx });
  await app.register(introspectRoutes, { ctx });
  await app.register(wellKnownRoutes, { ctx });
  // OpenID Connect RP-Initiated Logout 1.0 (docs/interface.md#sessions-and-sign-out).
  await app.register(endSessionRoutes, { ctx });
};
