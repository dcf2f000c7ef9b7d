/** The browser session's own calls: sign-in, sign-out, the account page (README "Browser session API"). */

import { call, enc } from './http';
import type {
  AuditEventView,
  BrandingView,
  ConsentView,
  LauncherAppView,
  LogoutRequest,
  MeView,
  PendingSignInView,
  SessionView,
  SignedInView,
} from './types';

export const accountApi = {
  /** With `second_factor` in the answer, the sign-in is pending until `completeSignIn`. */
  login: (uin: number, password: string, shared = false) =>
    call<SignedInView | PendingSignInView>('POST', '/v1/account/login', {
      uin,
      password,
      ...(shared && { shared }),
    }),
  logout: (request: LogoutRequest = {}) =>
    call<{ redirect_to?: string }>('POST', '/v1/account/logout', request),
  sessions: () => call<{ sessions: SessionView[] }>('GET', '/v1/account/sessions'),
  endSession: (id: string) => call<object>('DELETE', `/v1/account/sessions/${enc(id)}`),
  me: () => call<MeView>('GET', '/v1/account/me'),
  changePassword: (current_password: string, new_password: string) =>
    call<object>('POST', '/v1/account/password', { current_password, new_password }),
  consents: () => call<{ consents: ConsentView[] }>('GET', '/v1/account/consents'),
  revokeConsent: (clientId: string) => call<object>('DELETE', `/v1/account/consents/${enc(clientId)}`),
  /** The home page's app launcher: authorized and listed apps. */
  launcherApps: () => call<{ apps: LauncherAppView[] }>('GET', '/v1/account/apps'),
  /** The school's name, logo, colour and helpdesk (public). */
  branding: () => call<BrandingView>('GET', '/v1/branding'),
  activity: () => call<{ events: AuditEventView[] }>('GET', '/v1/account/activity'),
  redeemResetCode: (uin: number, code: string, new_password: string) =>
    call<object>('POST', '/v1/account/password-reset', { uin, code, new_password }),

  /** docs/interface.md#sign-in-with-your-phone: the computer's side. */
  phoneSignInStart: () =>
    call<{ id: string; number: number; scan_url: string; expires_at: string }>(
      'POST',
      '/v1/account/phone-sign-in',
    ),
  phoneSignInPoll: () =>
    call<{ status: 'pending' | 'failed' | 'expired' | 'approved' }>('POST', '/v1/account/phone-sign-in/poll'),
  /** The phone's side. */
  phoneSignInLook: (id: string) =>
    call<{ ip: string | null; user_agent: string | null; created_at: string; choices: number[] }>(
      'GET',
      `/v1/account/phone-sign-in/${enc(id)}`,
    ),
  phoneSignInApprove: (id: string, number: number) =>
    call<Record<string, never>>('POST', `/v1/account/phone-sign-in/${enc(id)}/approve`, { number }),
};
