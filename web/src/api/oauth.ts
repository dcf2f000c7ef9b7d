/** The OAuth 2.0 pages' calls: the authorization page and the device page (docs/interface.md). */

import { call } from './http';
import type { AppInfoView, AuthorizationParams, DeviceDecisionView, DeviceRequestView } from './types';

export const oauthApi = {
  /** docs/interface.md#device-authorization-grant: the request a device's user code names. */
  deviceLookup: (userCode: string) =>
    call<DeviceRequestView>('POST', '/v1/oauth2/device/lookup', { user_code: userCode }),
  deviceDecision: (userCode: string, allow: boolean) =>
    call<DeviceDecisionView>('POST', '/v1/oauth2/device/decision', { user_code: userCode, allow }),
  /**
   * The whole request, as the app sent it (an empty `state` too): `scope` is what the app asks for now (a
   * remembered consent counts only if it covers all of it), and the rest is checked so that an error shows
   * before sign-in (`request_error`).
   */
  appInfo: (params: AuthorizationParams) =>
    call<AppInfoView>(
      'GET',
      `/v1/oauth2/app-info?${new URLSearchParams(
        Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined),
      ).toString()}`,
    ),
  /** `remembered`: answered for the user from a remembered consent, without a click. */
  authorize: (params: AuthorizationParams, decision: 'allow' | 'deny', remembered = false) =>
    call<{ redirect_to: string }>('POST', '/v1/oauth2/authorize', {
      ...params,
      decision,
      ...(remembered && { remembered }),
    }),
};
