/**
 * The one typed client for the server's JSON API (README "Browser session API" and "Admin API"), in one
 * module per area; `api` joins them so the pages call `api.login(...)`, `api.listApps()` and so on.
 */

import { accountApi } from './account';
import { adminAppsApi } from './admin-apps';
import { adminUsersApi } from './admin-users';
import { casApi } from './cas';
import { oauthApi } from './oauth';
import { secondFactorApi } from './second-factor';

export { ApiError, NetworkError, onPasswordChangeRequired } from './http';
export * from './types';

export const api = {
  ...accountApi,
  ...secondFactorApi,
  ...oauthApi,
  ...casApi,
  ...adminAppsApi,
  ...adminUsersApi,
};
