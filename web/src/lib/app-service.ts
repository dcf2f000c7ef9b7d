/**
 * The service-account fields of an app form (docs/interface.md#service-accounts-client-credentials) as the admin API takes them:
 * only what differs from the app as it is (or, for a new app, from "off, no scopes"), so a form that leaves
 * them alone sends nothing about them.
 */
import type { AppServiceFields, AppView } from '../api';

export interface ServiceView {
  readonly client_credentials?: boolean;
  readonly allowed_scopes?: readonly string[];
}

export function serviceChanges(
  app: AppView | null,
  clientCredentials: boolean,
  allowedScopes: readonly string[],
): AppServiceFields {
  const current = serviceView(app);
  const scopes = clientCredentials ? [...allowedScopes] : [...(current.allowed_scopes ?? [])];
  return {
    ...(clientCredentials !== (current.client_credentials ?? false) && {
      client_credentials: clientCredentials,
    }),
    ...(scopes.join(' ') !== (current.allowed_scopes ?? []).join(' ') && { allowed_scopes: scopes }),
  };
}

/** The app's service-account settings (none for a new app). */
export function serviceView(app: AppView | null): ServiceView {
  return (app as (AppView & ServiceView) | null) ?? {};
}
