/** Admin: applications (README "Admin API"). */

import { call, enc } from './http';
import type { AppLogoutFields, AppServiceFields, AppView } from './types';

export const adminAppsApi = {
  listApps: () => call<{ apps: AppView[] }>('GET', '/v1/admin/apps'),
  createApp: (
    app: {
      name: string;
      emoji: string;
      redirect_uris: string[];
      allowed_groups?: string[];
      listed?: boolean;
      homepage_url?: string | null;
      cas_services?: string[];
      device_grant?: boolean;
    } & AppLogoutFields &
      AppServiceFields,
  ) => call<{ app: AppView; client_secret: string }>('POST', '/v1/admin/apps', app),
  updateApp: (
    clientId: string,
    patch: Partial<
      Pick<
        AppView,
        | 'name'
        | 'emoji'
        | 'redirect_uris'
        | 'disabled'
        | 'allow_refresh_tokens'
        | 'allowed_groups'
        | 'listed'
        | 'homepage_url'
        | 'device_grant'
      >
    > & { cas_services?: string[] } & AppLogoutFields &
      AppServiceFields,
  ) => call<{ app: AppView }>('PATCH', `/v1/admin/apps/${enc(clientId)}`, patch),
  rotateSecret: (clientId: string) =>
    call<{ client_id: string; client_secret: string }>(
      'POST',
      `/v1/admin/apps/${enc(clientId)}/rotate-secret`,
      {},
    ),
  deleteApp: (clientId: string) => call<object>('DELETE', `/v1/admin/apps/${enc(clientId)}`),
};
