/**
 * Shared steps of the OAuth tests: a signed-in user, a registered app, and the authorization request made
 * through the page's own call (`POST /v1/oauth2/authorize`), exactly as the consent page makes it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { type Client, REDIRECT_URI } from '../helpers/fixture.js';
import { type Browser, json } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';

export {
  type Client,
  freshUin,
  PASSWORD,
  REDIRECT_URI,
  registerClient,
  signedInUser,
} from '../helpers/fixture.js';

export type AuthorizationBody = Record<string, unknown>;

/**
 * OIDC Core §3.1.2.1: an OpenID Connect request (scope `openid`) carries response_type=code; it is added
 * unless the body names response_type itself (even as undefined, to leave it out).
 */
function withResponseType(body: AuthorizationBody): AuthorizationBody {
  const openid = typeof body.scope === 'string' && body.scope.split(' ').includes('openid');
  return openid && !('response_type' in body) ? { response_type: 'code', ...body } : body;
}

/** The page's call; answers the raw response. */
export function postAuthorize(browser: Browser, body: AuthorizationBody): Promise<Response> {
  return browser.call('POST', '/v1/oauth2/authorize', { decision: 'allow', ...withResponseType(body) });
}

/** The page's call; answers `data.redirect_to` as a URL (expects 200). */
export async function authorizeRedirect(browser: Browser, body: AuthorizationBody): Promise<URL> {
  const response = await postAuthorize(browser, body);
  const payload = await json<{ code: number; msg: string; data: { redirect_to: string } }>(response);
  expect({ status: response.status, code: payload.code }).toEqual({ status: 200, code: 0 });
  return new URL(payload.data.redirect_to);
}

/** A fresh authorization code for `client`, with any extra authorization parameters. */
export async function obtainCode(
  browser: Browser,
  client: Client,
  extra: AuthorizationBody = {},
): Promise<string> {
  const url = await authorizeRedirect(browser, {
    client_id: client.clientId,
    redirect_uri: REDIRECT_URI,
    ...extra,
  });
  const code = url.searchParams.get('code');
  expect(code).toMatch(/^[A-Za-z0-9_-]{51}$/);
  return code as string;
}

/** RFC 7636 §4.1 / §4.2: a verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

export function basic(clientId: string, secret: string): string {
  const encode = (value: string): string => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}`;
}

/** POST a form to an endpoint; `auth` is an Authorization header value. */
export function postForm(
  server: TestServer,
  path: string,
  form: Record<string, string>,
  auth?: string,
): Promise<Response> {
  return server.fetch(path, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(auth ? { authorization: auth } : {}),
    },
    body: new URLSearchParams(form).toString(),
  });
}

/** The standard code exchange with client_secret_basic. */
export function exchangeCode(
  server: TestServer,
  client: Client,
  code: string,
  extra: Record<string, string> = {},
): Promise<Response> {
  return postForm(
    server,
    '/v1/oauth2/token',
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...extra },
    basic(client.clientId, client.clientSecret),
  );
}

/**
 * docs/interface.md#legacy-token-endpoint: the legacy JSON exchange; a string body is sent as it is (to test
 * malformed JSON).
 */
export function legacyExchange(server: TestServer, body: unknown): Promise<Response> {
  return server.fetch(`/v1/oauth2/get-access-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export function getUserInfo(server: TestServer, accessToken: string): Promise<Response> {
  return server.fetch(`/v1/oauth2/get-user-info`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
}

export interface TokenBody {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token?: string;
  scope?: string;
  id_token?: string;
}

/** Runs the whole flow and answers the token response body. */
export async function tokensFor(
  server: TestServer,
  browser: Browser,
  client: Client,
  extra: AuthorizationBody = {},
): Promise<TokenBody> {
  const code = await obtainCode(browser, client, extra);
  const response = await exchangeCode(server, client, code);
  expect(response.status).toBe(200);
  return json<TokenBody>(response);
}

export interface OAuthErrorBody {
  error: string;
  error_description: string;
}

export async function expectOAuthError(
  response: Response,
  status: number,
  error: string,
): Promise<OAuthErrorBody> {
  const body = await json<OAuthErrorBody>(response);
  expect({ status: response.status, error: body.error }).toEqual({ status, error });
  expect(typeof body.error_description).toBe('string');
  return body;
}
