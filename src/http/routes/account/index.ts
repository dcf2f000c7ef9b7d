import type { RoutePlugin } from '../../route-plugin.js';
import { activityRoutes } from './activity.js';
import { consentRoutes } from './consents.js';
import { loginRoutes } from './login.js';
import { passwordResetRoutes } from './password-reset.js';
import { passwordRoutes } from './password.js';

/** The signed-in user's own calls (docs/interface.md#browser-session-api, docs/interface.md#admin-api): sign-in, who am I, password, authorized apps. */
export const accountRoutes: RoutePlugin = async (app, { ctx }) => {
  await app.register(loginRoutes, { ctx });
  await app.register(passwordRoutes, { ctx });
  await app.register(consentRoutes, { ctx });
  await app.register(passwordResetRoutes, { ctx });
  await app.register(activityRoutes, { ctx });
};
