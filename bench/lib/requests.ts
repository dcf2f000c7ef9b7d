/** The HTTP requests of each row, built the same way for campus-sso and its peers. */
import type { Client } from './campus-sso.js';
import type { RequestSource, RequestSpec } from './load.js';

/** RFC 6749 §2.3.1: client_secret_basic, with the form-urlencoding of id and secret before base64. */
export function basicAuth(client: Client): string {
  const id = encodeURIComponent(client.clientId);
  const secret = encodeURIComponent(client.clientSecret);
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

/** Round-robin over tokens, one bearer request each. */
export function bearerRequests(path: string, tokens: readonly string[]): RequestSource {
  if (tokens.length === 0) throw new Error('no tokens to send');
  const headers = tokens.map((token) => ({ authorization: `Bearer ${token}` }));
  let next = 0;
  return {
    next: (): RequestSpec => {
      const spec: RequestSpec = { method: 'GET', path, headers: headers[next % headers.length] ?? {} };
      next++;
      return spec;
    },
  };
}

/** Each code goes out exactly once; the source runs dry (and the row stops) when they are used up. */
function onceEach(codes: readonly string[], build: (code: string) => RequestSpec): RequestSource {
  let next = 0;
  return { next: () => (next < codes.length ? build(codes[next++] as string) : undefined) };
}

/** RFC 6749 §4.1.3 access token request, client_secret_basic. */
export function tokenRequests(
  path: string,
  client: Client,
  redirectUri: string,
  codes: readonly string[],
): RequestSource {
  const headers = { authorization: basicAuth(client), 'content-type': 'application/x-www-form-urlencoded' };
  const redirect = encodeURIComponent(redirectUri);
  return onceEach(codes, (code) => ({
    method: 'POST',
    path,
    headers,
    body: `grant_type=authorization_code&code=${encodeURIComponent(code)}&redirect_uri=${redirect}`,
  }));
}

/**
 * docs/interface.md#legacy-token-endpoint: the legacy JSON exchange (no redirect_uri, credentials in the
 * body).
 */
export function legacyTokenRequests(client: Client, codes: readonly string[]): RequestSource {
  const headers = { 'content-type': 'application/json' };
  return onceEach(codes, (code) => ({
    method: 'POST',
    path: '/v1/oauth2/get-access-token',
    headers,
    body: JSON.stringify({ client_id: client.clientId, client_secret: client.clientSecret, code }),
  }));
}

/** docs/interface.md#browser-session-api: password sign-in, round-robin over users. */
export function loginRequests(users: readonly { uin: number; password: string }[]): RequestSource {
  const bodies = users.map((user) => JSON.stringify({ uin: user.uin, password: user.password }));
  let next = 0;
  return {
    next: (): RequestSpec => ({
      method: 'POST',
      path: '/v1/account/login',
      headers: { 'content-type': 'application/json' },
      body: bodies[next++ % bodies.length] ?? '',
    }),
  };
}

/** Body checks: a 2xx must also carry the right answer. Each answers a problem, or undefined. */
function parse(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * docs/interface.md#legacy-user-information:
 * `{"code":0,"msg":"ok","data":{"created_at","uin":<integer>,"user_group"}}`.
 */
export function legacyUserInfo(uin: number) {
  return (body: string): string | undefined => {
    const data = parse(body)?.data as Record<string, unknown> | undefined;
    return data?.uin === uin && typeof data.user_group === 'string' && typeof data.created_at === 'string'
      ? undefined
      : 'not the user information';
  };
}

/** OIDC userinfo: `sub` plus the same claims. */
export function oidcUserInfo(uin: number) {
  return (body: string): string | undefined => {
    const json = parse(body);
    return json?.sub === String(uin) && json.uin === uin ? undefined : 'not the user information';
  };
}

/** RFC 6749 §5.1, and the fairness condition of the comparison: no id_token, no refresh_token. */
export function tokenResponse(body: string): string | undefined {
  const json = parse(body);
  if (typeof json?.access_token !== 'string' || String(json.token_type).toLowerCase() !== 'bearer') {
    return 'not a token response';
  }
  if ('id_token' in json || 'refresh_token' in json) return 'issued more than an access token';
  return undefined;
}

/** docs/interface.md#legacy-token-endpoint: `{"code":0,"msg":"ok","data":{"access_token":"…"}}`. */
export function legacyTokenResponse(body: string): string | undefined {
  const json = parse(body);
  const data = json?.data as Record<string, unknown> | undefined;
  return json?.code === 0 && typeof data?.access_token === 'string'
    ? undefined
    : 'not a legacy token response';
}

/** docs/interface.md#browser-session-api: `data:{"uin","user_group"}`. */
export function loginResponse(body: string): string | undefined {
  const data = parse(body)?.data as Record<string, unknown> | undefined;
  return typeof data?.uin === 'number' && typeof data.user_group === 'string'
    ? undefined
    : 'not a sign-in answer';
}
