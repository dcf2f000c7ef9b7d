import type { RoutePlugin } from '../../route-plugin.js';
import { activityRoutes } from './activity.js';
import { consentRoutes } from './consents.js';
import { launcherRoutes } from './launcher.js';
import { loginRoutes } from './login.js';
import { passwordResetRoutes } from './password-reset.js';
import { passwordRoutes } from './password.js';
import { secondFactorSignInRoutes } from './second-factor-sign-in.js';
import { secondFactorRoutes } from './second-factors.js';
import { sessionRoutes } from './sessions.js';

/** The signed-in user's own calls (docs/interface.md#browser-session-api, docs/interface.md#second-factor, docs/interface.md#people-groups-and-audit): sign-in, who am I, password, authorized apps. */
export const accountRoutes: RoutePlugin = async (app, { ctx }) => {
  await app.register(loginRoutes, { ctx });
  await app.register(passwordRoutes, { ctx });
  await app.register(consentRoutes, { ctx });
  await app.register(secondFactorSignInRoutes, { ctx });
  await app.register(secondFactorRoutes, { ctx });
  await app.register(passwordResetRoutes, { ctx });
  await app.register(activityRoutes, { ctx });
  await app.register(sessionRoutes, { ctx });
  await app.register(launcherRoutes, { ctx });
};
