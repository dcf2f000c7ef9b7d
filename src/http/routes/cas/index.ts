import { type RoutePlugin, registerAll } from '../../route-plugin.js';
import { casLoginRoutes } from './login.js';
import { casPageRoutes } from './page-api.js';
import { casValidateRoutes } from './validate.js';

/** campus-sso as a CAS server (docs/interface.md#cas-protocol), one module per kind of endpoint. */
export const casRoutes: RoutePlugin = (app, { ctx }) =>
  registerAll(app, ctx, [casLoginRoutes, casValidateRoutes, casPageRoutes]);
