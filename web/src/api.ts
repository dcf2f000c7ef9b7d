/**
 * The one typed client for the server's JSON API (README "Browser session API" and "Admin API").
 * Every answer is the envelope `{code, msg, data}`; a non-zero code becomes an `ApiError`.
 * Calls are same-origin with the session cookie; bodies are JSON, which (with the browser's `Origin`)
 * is what the server's CSRF check expects.
 */

export type UserGroup = 'admin' | 'member' | 'user';
export const USER_GROUPS: readonly UserGroup[] = ['admin', 'member', 'user'];

export interface Me {
  uin: number;
  user_group: UserGroup;
  created_at: string;
}

export interface AppInfo {
  client_id: string;
  name: string;
  emoji: string;
  consented: boolean;
  /** Present when the app asks for offline_access and may get refresh tokens: how long it stays signed in. */
  stays_signed_in_days?: number;
}

export interface Consent {
  client_id: string;
  name: string;
  emoji: string;
  scope: string;
  granted_at: string;
}

export interface OAuthApp {
  client_id: string;
  name: string;
  emoji: string;
  redirect_uris: string[];
  created_at: string;
  disabled: boolean;
  allow_refresh_tokens: boolean;
}

export interface User {
  uin: number;
  user_group: UserGroup;
  created_at: string;
  disabled: boolean;
}

/** The authorization request's parameters, passed through to `POST /v1/oauth2/authorize` unchanged. */
export interface AuthorizationParams {
  client_id: string;
  redirect_uri: string;
  state?: string;
  response_type?: string;
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
  password: string;
  user_group: string;
}

export interface ImportResult {
  line: number;
  uin: number | null;
  status: 'created' | 'exists' | 'error';
  error?: string;
}

/** Envelope codes (README "The envelope"). */
export const ApiCode = {
  ok: 0,
  invalidRequest: 1,
  unknownClient: 3,
  notSignedIn: -1,
  forbidden: 4,
  notFound: 5,
  conflict: 6,
  throttled: 7,
} as const;

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    /** Seconds from `Retry-After` on a 429, when the server sent it. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** Thrown when the server cannot be reached or answers something that is not the envelope. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

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
  const code = typeof envelope.code === 'number' ? envelope.code : response.ok ? 0 : 99;
  if (!response.ok || code !== 0) {
    const retryAfter = Number.parseInt(response.headers.get('Retry-After') ?? '', 10);
    throw new ApiError(
      response.status,
      code,
      typeof envelope.msg === 'string' ? envelope.msg : `HTTP ${response.status}`,
      Number.isFinite(retryAfter) ? retryAfter : undefined,
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
  login: (uin: number, password: string) =>
    call<{ uin: number; user_group: UserGroup }>('POST', '/v1/account/login', { uin, password }),
  logout: () => call<object>('POST', '/v1/account/logout', {}),
  me: () => call<Me>('GET', '/v1/account/me'),
  changePassword: (current_password: string, new_password: string) =>
    call<object>('POST', '/v1/account/password', { current_password, new_password }),
  consents: () => call<{ consents: Consent[] }>('GET', '/v1/account/consents'),
  revokeConsent: (clientId: string) => call<object>('DELETE', `/v1/account/consents/${enc(clientId)}`),

  // Authorization page
  /** `scope`: what the app asks for now; a remembered consent counts only if it covers all of it. */
  appInfo: (clientId: string, redirectUri: string, scope?: string) =>
    call<AppInfo>(
      'GET',
      `/v1/oauth2/app-info${query({ client_id: clientId, redirect_uri: redirectUri, scope })}`,
    ),
  authorize: (params: AuthorizationParams, decision: 'allow' | 'deny') =>
    call<{ redirect_to: string }>('POST', '/v1/oauth2/authorize', { ...params, decision }),

  // Admin: applications
  listApps: () => call<{ apps: OAuthApp[] }>('GET', '/v1/admin/apps'),
  createApp: (app: { name: string; emoji: string; redirect_uris: string[] }) =>
    call<{ app: OAuthApp; client_secret: string }>('POST', '/v1/admin/apps', app),
  updateApp: (
    clientId: string,
    patch: Partial<Pick<OAuthApp, 'name' | 'emoji' | 'redirect_uris' | 'disabled' | 'allow_refresh_tokens'>>,
  ) => call<{ app: OAuthApp }>('PATCH', `/v1/admin/apps/${enc(clientId)}`, patch),
  rotateSecret: (clientId: string) =>
    call<{ client_id: string; client_secret: string }>(
      'POST',
      `/v1/admin/apps/${enc(clientId)}/rotate-secret`,
      {},
    ),
  deleteApp: (clientId: string) => call<object>('DELETE', `/v1/admin/apps/${enc(clientId)}`),

  // Admin: users
  listUsers: (params: { search?: string; group?: UserGroup; offset: number; limit: number }) =>
    call<{ users: User[]; total: number }>('GET', `/v1/admin/users${query({ ...params })}`),
  createUser: (user: { uin: number; password: string; user_group: UserGroup }) =>
    call<{ user: User }>('POST', '/v1/admin/users', user),
  updateUser: (uin: number, patch: Partial<{ user_group: UserGroup; disabled: boolean; password: string }>) =>
    call<{ user: User }>('PATCH', `/v1/admin/users/${uin}`, patch),
  importUsers: (rows: ImportRow[]) =>
    call<{ results: ImportResult[] }>('POST', '/v1/admin/users/import', { rows }),
};
