import { type RoutePlugin, registerAll } from '../../route-plugin.js';
import { activityRoutes } from './activity.js';
import { consentRoutes } from './consents.js';
import { launcherRoutes } from './launcher.js';
import { loginRoutes } from './login.js';
import { passkeySignInRoutes } from './passkey-sign-in.js';
import { passwordResetRoutes } from './password-reset.js';
import { phoneSignInRoutes } from './phone-sign-in.js';
import { passwordRoutes } from './password.js';
import { secondFactorSignInRoutes } from './second-factor-sign-in.js';
import { secondFactorRoutes } from './second-factors.js';
import { sessionRoutes } from './sessions.js';

/** The signed-in user's own calls (docs/interface.md#browser-session-api, docs/interface.md#second-factor, docs/interface.md#people-groups-and-audit): sign-in, who am I, password, authorized apps. */
export const accountRoutes: RoutePlugin = (app, { ctx }) =>
  registerAll(app, ctx, [
    loginRoutes,
    passwordRoutes,
    consentRoutes,
    secondFactorSignInRoutes,
    passkeySignInRoutes,
    secondFactorRoutes,
    passwordResetRoutes,
    activityRoutes,
    sessionRoutes,
    launcherRoutes,
    // docs/interface.md#sign-in-with-your-phone
    phoneSignInRoutes,
  ]);
