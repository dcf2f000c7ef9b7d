/**
 * The one typed client for the server's JSON API (README "Browser session API" and "Admin API").
 * Every answer is the envelope `{code, msg, data}`; a non-zero code becomes an `ApiError`.
 * Calls are same-origin with the session cookie; bodies are JSON, which (with the browser's `Origin`)
 * is what the server's CSRF check expects.
 */

import { EnvelopeCode } from '../../src/shared/envelope';
import type { PageLogoutParameters } from '../../src/shared/logout';
export { PAGE_LOGOUT_PARAMETERS } from '../../src/shared/logout';
import { USER_GROUPS, type UserGroup } from '../../src/shared/users';
import type {
  AdminUserView,
  AuditEventView,
  AppInfoView,
  AppView,
  AuthorizationRequestError,
  CasServiceInfoView,
  ConsentView,
  DeviceDecisionView,
  DeviceRequestView,
  MeView,
  PasskeyView,
  PendingSignInView,
  SecondFactorKind,
  SecondFactorsView,
  SessionView,
  SignedInView,
  UserView,
} from '../../src/shared/views';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/browser';

import type { BrandingView, InvalidLinkReason, LauncherAppView, LogoutRefusal } from '../../src/shared/pages';

// The wire types and rules are the server's own (src/shared): one definition, so the two cannot drift.
export { EnvelopeCode, USER_GROUPS, type UserGroup };
export type {
  AdminUserView,
  AppInfoView,
  AppView,
  AuditEventView,
  AuthorizationRequestError,
  CasServiceInfoView,
  ConsentView,
  DeviceDecisionView,
  DeviceRequestView,
  MeView,
  SessionView,
  SignedInView,
  UserView,
};
export type { BrandingView, InvalidLinkReason, LauncherAppView, LogoutRefusal };
export type { PasskeyView, PendingSignInView, SecondFactorKind, SecondFactorsView };

/** One answer to a pending sign-in (docs/interface.md#second-factor). */
export type SecondFactorAnswer =
  { totp: string } | { recovery_code: string } | { passkey: AuthenticationResponseJSON };

/** `POST /v1/account/logout`: everywhere, or the #/logout page's RP-initiated logout parameters. */
export interface LogoutRequest extends PageLogoutParameters {
  everywhere?: boolean;
}

/** An app's logout settings (docs/interface.md#sessions-and-sign-out). */
export type AppLogoutFields = Partial<Pick<AppView, 'post_logout_redirect_uris' | 'backchannel_logout_uri'>>;

/** The authorization request's parameters, passed through to `POST /v1/oauth2/authorize` unchanged. */
export interface AuthorizationParams {
  client_id: string;
  redirect_uri: string;
  state?: string;
  response_type?: string;
  response_mode?: string;
  scope?: string;
  nonce?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  prompt?: string;
  max_age?: string;
  request?: string;
  request_uri?: string;
}

export interface ImportRow {
  line: number;
  uin: number;
  /** Empty: the person gets a one-time reset code instead. */
  password: string;
  user_group: string;
  name?: string;
  email?: string;
  /** Group tags separated by `;`. */
  groups?: string;
  expires_at?: string;
}

export interface ImportResult {
  line: number;
  uin: number | null;
  status: 'created' | 'exists' | 'error';
  error?: string;
  reset_code?: string;
  reset_code_expires_at?: string;
}

/** The profile fields an admin edits (null clears). */
export interface UserProfilePatch {
  name?: string | null;
  email?: string | null;
  groups?: string[];
  expires_at?: string | null;
}

export type BulkAction = 'set_group' | 'add_tag' | 'remove_tag' | 'set_expiry' | 'disable' | 'enable';

export interface BulkRequest {
  uins: number[];
  action: BulkAction;
  user_group?: UserGroup;
  tag?: string;
  expires_at?: string | null;
}

export interface BulkResult {
  uin: number;
  status: 'changed' | 'not_found' | 'error';
  error?: string;
}

export interface AuditFilters {
  uin?: string;
  action?: string;
  outcome?: string;
  since?: string;
  until?: string;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    /** The envelope's `code` (`EnvelopeCode`); 99 when the answer was not the envelope. */
    readonly code: number,
    message: string,
    /** Seconds from `Retry-After` on a 429, when the server sent it. */
    readonly retryAfter?: number,
    /** The envelope's `data` of an error answer (`{}` for most; code 3 says `reason` and `name`). */
    readonly data: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

/** Thrown when the server cannot be reached or answers something that is not the envelope. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

let passwordChangeRequired: () => void = () => undefined;

/**
 * Called whenever a call answers code 9 (the password must be changed first), so the pages can show the
 * change form wherever the user is (session.ts).
 */
export function onPasswordChangeRequired(listener: () => void): void {
  passwordChangeRequired = listener;
}

async function call<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const init: RequestInit = { method, credentials: 'same-origin', cache: 'no-store', headers };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new NetworkError(error instanceof Error ? error.message : String(error));
  }
  let envelope: { code?: unknown; msg?: unknown; data?: unknown };
  try {
    envelope = (await response.json()) as typeof envelope;
  } catch {
    throw new NetworkError(`${method} ${path}: HTTP ${response.status} without a JSON answer`);
  }
  const code =
    typeof envelope.code === 'number' ? envelope.code : response.ok ? EnvelopeCode.Ok : EnvelopeCode.Internal;
  if (!response.ok || code !== EnvelopeCode.Ok) {
    if (code === EnvelopeCode.PasswordChangeRequired) passwordChangeRequired();
    const retryAfter = Number.parseInt(response.headers.get('Retry-After') ?? '', 10);
    throw new ApiError(
      response.status,
      code,
      typeof envelope.msg === 'string' ? envelope.msg : `HTTP ${response.status}`,
      Number.isFinite(retryAfter) ? retryAfter : undefined,
      typeof envelope.data === 'object' && envelope.data !== null
        ? (envelope.data as Record<string, unknown>)
        : {},
    );
  }
  return envelope.data as T;
}

const enc = encodeURIComponent;

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

export const api = {
  // Browser session
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

  // Authorization page
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

  // CAS sign-in (docs/interface.md#cas-protocol)
  casServiceInfo: (service: string) =>
    call<CasServiceInfoView>('GET', `/v1/cas/service-info${query({ service })}`),
  casTicket: (service: string, renew: boolean) =>
    call<{ redirect_to: string }>('POST', '/v1/cas/ticket', { service, ...(renew && { renew }) }),

  // Admin: applications
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
    } & AppLogoutFields,
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
    > & { cas_services?: string[] } & AppLogoutFields,
  ) => call<{ app: AppView }>('PATCH', `/v1/admin/apps/${enc(clientId)}`, patch),
  rotateSecret: (clientId: string) =>
    call<{ client_id: string; client_secret: string }>(
      'POST',
      `/v1/admin/apps/${enc(clientId)}/rotate-secret`,
      {},
    ),
  deleteApp: (clientId: string) => call<object>('DELETE', `/v1/admin/apps/${enc(clientId)}`),

  // Admin: users
  listUsers: (params: {
    search?: string;
    name?: string;
    group?: UserGroup;
    tag?: string;
    offset: number;
    limit: number;
  }) => call<{ users: AdminUserView[]; total: number }>('GET', `/v1/admin/users${query({ ...params })}`),
  createUser: (user: { uin: number; password: string; user_group: UserGroup }) =>
    call<{ user: AdminUserView }>('POST', '/v1/admin/users', user),
  updateUser: (uin: number, patch: Partial<{ user_group: UserGroup; disabled: boolean; password: string }>) =>
    call<{ user: AdminUserView }>('PATCH', `/v1/admin/users/${uin}`, patch),
  signOutUser: (uin: number) =>
    call<{ sessions_ended: number }>('POST', `/v1/admin/users/${uin}/sign-out`, {}),
  importUsers: (rows: ImportRow[]) =>
    call<{ results: ImportResult[] }>('POST', '/v1/admin/users/import', { rows }),

  // Second factor (docs/interface.md#second-factor)
  completeSignIn: (answer: SecondFactorAnswer) =>
    call<SignedInView>('POST', '/v1/account/login/second-factor', answer),
  secondFactorOptions: () =>
    call<PublicKeyCredentialRequestOptionsJSON>('POST', '/v1/account/login/second-factor/options', {}),
  passkeyLoginOptions: () =>
    call<PublicKeyCredentialRequestOptionsJSON>('POST', '/v1/account/passkey-login/options', {}),
  passkeyLogin: (response: AuthenticationResponseJSON, shared: boolean) =>
    call<SignedInView>('POST', '/v1/account/passkey-login', { response, ...(shared && { shared: true }) }),
  secondFactors: () => call<SecondFactorsView>('GET', '/v1/account/second-factors'),
  // `password`: typed again when the sign-in is over 5 minutes old (docs/interface.md#second-factor).
  totpSetup: (password?: string) =>
    call<{ secret: string; otpauth_uri: string }>('POST', '/v1/account/totp/setup', { password }),
  totpConfirm: (code: string) =>
    call<{ recovery_codes?: string[] }>('POST', '/v1/account/totp/confirm', { code }),
  totpRemove: (password: string) => call<object>('DELETE', '/v1/account/totp', { password }),
  passkeyOptions: (password?: string) =>
    call<PublicKeyCredentialCreationOptionsJSON>('POST', '/v1/account/passkeys/options', { password }),
  addPasskey: (name: string, response: RegistrationResponseJSON) =>
    call<{ passkey: PasskeyView; recovery_codes?: string[] }>('POST', '/v1/account/passkeys', {
      name,
      response,
    }),
  removePasskey: (id: string, password?: string) =>
    call<object>('DELETE', `/v1/account/passkeys/${enc(id)}`, { password }),
  regenerateRecoveryCodes: (password: string) =>
    call<{ recovery_codes: string[] }>('POST', '/v1/account/recovery-codes', { password }),
  // People, groups and the audit trail
  updateProfile: (uin: number, patch: UserProfilePatch) =>
    call<{ user: AdminUserView }>('PATCH', `/v1/admin/users/${uin}`, patch),
  bulkUsers: (request: BulkRequest) =>
    call<{ results: BulkResult[] }>('POST', '/v1/admin/users/bulk', request),
  unlockUser: (uin: number) => call<object>('POST', `/v1/admin/users/${uin}/unlock`, {}),
  removeSecondFactors: (uin: number) => call<object>('DELETE', `/v1/admin/users/${uin}/second-factors`),
  issueResetCode: (uin: number) =>
    call<{ code: string; expires_at: string }>('POST', `/v1/admin/users/${uin}/reset-code`, {}),
  redeemResetCode: (uin: number, code: string, new_password: string) =>
    call<object>('POST', '/v1/account/password-reset', { uin, code, new_password }),
  audit: (filters: AuditFilters & { cursor?: string; limit?: number }) =>
    call<{ events: AuditEventView[]; next_cursor: string | null }>(
      'GET',
      `/v1/admin/audit${query({ ...filters })}`,
    ),
  auditCsvUrl: (filters: AuditFilters) => `/v1/admin/audit.csv${query({ ...filters })}`,
  activity: () => call<{ events: AuditEventView[] }>('GET', '/v1/account/activity'),
};
