/** The CAS sign-in page's calls (docs/interface.md#cas-protocol). */

import { call, query } from './http';
import type { CasServiceInfoView } from './types';

export const casApi = {
  /** The app a service URL belongs to, and whether the signed-in user may use it. */
  casServiceInfo: (service: string) =>
    call<CasServiceInfoView>('GET', `/v1/cas/service-info${query({ service })}`),
  casTicket: (service: string, renew: boolean) =>
    call<{ redirect_to: string }>('POST', '/v1/cas/ticket', { service, ...(renew && { renew }) }),
};
