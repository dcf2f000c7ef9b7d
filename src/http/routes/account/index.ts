import type { RoutePlugin } from '../../route-plugin.js';
import { consentRoutes } from './consents.js';
import { launcherRoutes } from './launcher.js';
import { loginRoutes } from './login.js';
import { passwordRoutes } from './password.js';

/** The signed-in user's own calls (SPEC §2, §7): sign-in, who am I, password, authorized apps. */
export const accountRoutes: RoutePlugin = async (app, { ctx }) => {
  await app.register(loginRoutes, { ctx });
  await app.register(passwordRoutes, { ctx });
  await app.register(consentRoutes, { ctx });
  await app.register(launcherRoutes, { ctx });
};
