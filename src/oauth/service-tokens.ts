/**
 * Placeholder until the client_credentials grant lands (docs/interface.md#service-accounts): no token is a
 * service token yet. The agreed signature; replaced by the real module on merge.
 */
import type { AppContext } from '../app-context.js';

export interface ServicePrincipal {
  clientId: string;
  scopes: readonly string[];
}

export async function findServicePrincipal(
  _ctx: AppContext,
  _accessToken: string,
): Promise<ServicePrincipal | null> {
  return null;
}
