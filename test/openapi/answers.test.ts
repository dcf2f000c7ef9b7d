/**
 * docs/interface.md#openapi: the real answers of every GET route the document lists match what the document
 * says of them. The routes are enumerated from the document itself, so a new GET route without a request
 * here fails the suite; each is called as a real client would, with the state it needs created first (a user,
 * an app, an access token, a pending phone sign-in, a CAS service ticket), and its status and JSON body are
 * validated against the document's response schema for that status (the exact status, else its `4XX`-style
 * class, else `default`); a non-JSON answer must carry a content type the document lists. Both databases.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { beforeAll, expect, it } from 'vitest';
import { SERVICE, ticketFor } from '../cas/support.js';
import { REDIRECT_URI, describeOnDatabases, registerClient, signedInUser } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { postAuthorize, tokensFor } from '../oauth/support.js';
import type { OpenApiDocument, OpenApiOperation } from './document.js';

// ajv-formats is CommonJS: under ESM its default import is the module object, whose `default` is the plugin.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv2020) => Ajv2020 }).default;

/** The state the requests are made with (created before the tests). */
interface State {
  readonly admin: Browser;
  readonly clientId: string;
  readonly uin: number;
  readonly accessToken: string;
  readonly phoneSignInId: string;
}

/** A GET request: who sends it (a browser with its cookie, or a bare request with these headers) and where. */
interface Request {
  readonly path: string;
  readonly browser?: Browser;
  readonly headers?: Record<string, string>;
}

type Make = (server: TestServer, state: State) => Promise<Request> | Request;

const query = (params: Record<string, string>): string => new URLSearchParams(params).toString();

/** A fresh signed-in member (for the routes that end a session). */
async function throwaway(server: TestServer): Promise<Browser> {
  return (await signedInUser(server)).browser;
}

/** A valid request of each GET route the document lists, as OpenAPI writes its path. */
const REQUESTS: Readonly<Record<string, Make>> = {
  '/v1/openapi.json': () => ({ path: '/v1/openapi.json' }),
  '/v1/branding': () => ({ path: '/v1/branding' }),
  '/.well-known/oauth-authorization-server': () => ({ path: '/.well-known/oauth-authorization-server' }),
  '/.well-known/openid-configuration': () => ({ path: '/.well-known/openid-configuration' }),
  '/.well-known/jwks.json': () => ({ path: '/.well-known/jwks.json' }),
  '/v1/account/me': (_, s) => ({ path: '/v1/account/me', browser: s.admin }),
  '/v1/account/consents': (_, s) => ({ path: '/v1/account/consents', browser: s.admin }),
  '/v1/account/second-factors': (_, s) => ({ path: '/v1/account/second-factors', browser: s.admin }),
  '/v1/account/passkeys': (_, s) => ({ path: '/v1/account/passkeys', browser: s.admin }),
  '/v1/account/activity': (_, s) => ({ path: '/v1/account/activity', browser: s.admin }),
  '/v1/account/sessions': (_, s) => ({ path: '/v1/account/sessions', browser: s.admin }),
  '/v1/account/apps': (_, s) => ({ path: '/v1/account/apps', browser: s.admin }),
  // The signed-in phone looks at the sign-in a computer started.
  '/v1/account/phone-sign-in/{id}': (_, s) => ({
    path: `/v1/account/phone-sign-in/${s.phoneSignInId}`,
    browser: s.admin,
  }),
  '/v1/admin/apps': (_, s) => ({ path: '/v1/admin/apps', browser: s.admin }),
  '/v1/admin/apps/{client_id}': (_, s) => ({ path: `/v1/admin/apps/${s.clientId}`, browser: s.admin }),
  '/v1/admin/users': (_, s) => ({
    path: `/v1/admin/users?${query({ search: String(s.uin) })}`,
    browser: s.admin,
  }),
  '/v1/admin/users/{uin}': (_, s) => ({ path: `/v1/admin/users/${s.uin}`, browser: s.admin }),
  '/v1/admin/audit': (_, s) => ({ path: '/v1/admin/audit?limit=50', browser: s.admin }),
  '/v1/admin/audit.csv': (_, s) => ({ path: '/v1/admin/audit.csv', browser: s.admin }),
  '/v1/oauth2/authorize': (_, s) => ({
    path: `/v1/oauth2/authorize?${query({ client_id: s.clientId, redirect_uri: REDIRECT_URI, response_type: 'code' })}`,
    browser: s.admin,
  }),
  // The page's call with response_mode=form_post answers the form page's URL, with the response sealed.
  '/v1/oauth2/authorize/form-post': async (_, s) => {
    const response = await postAuthorize(s.admin, {
      client_id: s.clientId,
      redirect_uri: REDIRECT_URI,
      response_mode: 'form_post',
    });
    expect(response.status).toBe(200);
    const target = new URL((await json<{ data: { redirect_to: string } }>(response)).data.redirect_to);
    expect(target.pathname).toBe('/v1/oauth2/authorize/form-post');
    return { path: target.pathname + target.search, browser: s.admin };
  },
  '/v1/oauth2/app-info': (_, s) => ({
    path: `/v1/oauth2/app-info?${query({ client_id: s.clientId, redirect_uri: REDIRECT_URI, scope: 'openid' })}`,
    browser: s.admin,
  }),
  '/v1/oauth2/get-user-info': (_, s) => ({
    path: '/v1/oauth2/get-user-info',
    headers: { authorization: `Bearer ${s.accessToken}` },
  }),
  '/v1/oauth2/userinfo': (_, s) => ({
    path: '/v1/oauth2/userinfo',
    headers: { authorization: `Bearer ${s.accessToken}` },
  }),
  '/v1/oauth2/logout': async (server) => ({ path: '/v1/oauth2/logout', browser: await throwaway(server) }),
  '/cas/login': (_, s) => ({ path: `/cas/login?${query({ service: SERVICE })}`, browser: s.admin }),
  '/cas/logout': async (server) => ({ path: '/cas/logout', browser: await throwaway(server) }),
  '/cas/validate': async (_, s) => ({
    path: `/cas/validate?${query({ service: SERVICE, ticket: await ticketFor(s.admin) })}`,
  }),
  '/cas/serviceValidate': async (_, s) => ({
    path: `/cas/serviceValidate?${query({ service: SERVICE, ticket: await ticketFor(s.admin) })}`,
  }),
  '/cas/proxyValidate': async (_, s) => ({
    path: `/cas/proxyValidate?${query({ service: SERVICE, ticket: await ticketFor(s.admin) })}`,
  }),
  '/cas/p3/serviceValidate': async (_, s) => ({
    path: `/cas/p3/serviceValidate?${query({ service: SERVICE, ticket: await ticketFor(s.admin), format: 'JSON' })}`,
  }),
  '/cas/p3/proxyValidate': async (_, s) => ({
    path: `/cas/p3/proxyValidate?${query({ service: SERVICE, ticket: await ticketFor(s.admin) })}`,
  }),
  // No proxy-granting ticket can be had without an HTTPS proxy callback, so the realistic answer is the
  // documented proxyFailure; its content type is checked against the document like any other.
  '/cas/proxy': () => ({
    path: `/cas/proxy?${query({ pgt: 'PGT-unknown', targetService: SERVICE })}`,
  }),
  '/v1/cas/service-info': (_, s) => ({
    path: `/v1/cas/service-info?${query({ service: SERVICE })}`,
    browser: s.admin,
  }),
};

/** The document's answer for `status`: the exact status, else its class (`4XX`), else `default`. */
function documentedResponse(operation: OpenApiOperation, status: number) {
  const { responses } = operation;
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
}

function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** What is wrong with `response` as the document describes `operation`'s answers; empty when nothing is. */
async function mismatches(
  ajv: Ajv2020,
  where: string,
  operation: OpenApiOperation,
  response: Response,
): Promise<string[]> {
  const documented = documentedResponse(operation, response.status);
  const body = await response.text();
  if (documented === undefined) return [`${where}: status ${response.status} is not documented: ${body}`];
  const content = documented.content ?? {};
  const type = mediaType(response.headers.get('content-type'));
  if (Object.keys(content).length === 0) {
    return body === '' || response.status >= 300
      ? []
      : [`${where} ${response.status}: a body where none is documented`];
  }
  const media = content[type];
  if (media === undefined) {
    return [
      `${where} ${response.status}: content type ${type} is not among ${Object.keys(content).join(', ')}`,
    ];
  }
  if (type !== 'application/json') return [];
  const validate: ValidateFunction = ajv.compile(media.schema as object);
  if (validate(JSON.parse(body))) return [];
  return [`${where} ${response.status}: ${ajv.errorsText(validate.errors)} in ${body.slice(0, 400)}`];
}

async function send(server: TestServer, request: Request): Promise<Response> {
  if (request.browser !== undefined)
    return request.browser.call('GET', request.path, undefined, request.headers);
  return server.fetch(request.path, { headers: request.headers ?? {}, redirect: 'manual' });
}

function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // The formats are checked, not ignored: a timestamp that is not one fails.
  if (ajv.validate({ type: 'string', format: 'date-time' }, 'yesterday'))
    throw new Error('formats are not checked');
  return ajv;
}

async function documentOf(server: TestServer): Promise<OpenApiDocument> {
  const response = await server.fetch('/v1/openapi.json');
  expect(response.status).toBe(200);
  return json<OpenApiDocument>(response);
}

function getOperations(document: OpenApiDocument): [string, OpenApiOperation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    item.get === undefined ? [] : [[path, item.get] as [string, OpenApiOperation]],
  );
}

describeOnDatabases(
  'GET answers against /v1/openapi.json',
  { transport: 'inject', user: 'admin' },
  ({ server, user }) => {
    let state: State;

    beforeAll(async () => {
      const client = await registerClient(server, { casServices: [SERVICE] });
      const tokens = await tokensFor(server, user.browser, client, { scope: 'openid' });
      const computer = new Browser(server);
      const started = await computer.call('POST', '/v1/account/phone-sign-in');
      expect(started.status).toBe(200);
      state = {
        admin: user.browser,
        clientId: client.clientId,
        uin: user.uin,
        accessToken: tokens.access_token,
        phoneSignInId: (await json<{ data: { id: string } }>(started)).data.id,
      };
    });

    it('has a request here for every GET route the document lists', async () => {
      const document = await documentOf(server);
      const listed = getOperations(document).map(([path]) => path);
      expect(listed.length).toBeGreaterThan(30);
      expect([...listed].sort()).toEqual(Object.keys(REQUESTS).sort());
    });

    it('answers every GET route as its response schema says', async () => {
      const document = await documentOf(server);
      const ajv = newAjv();
      const problems: string[] = [];
      const statuses: string[] = [];
      for (const [path, operation] of getOperations(document)) {
        const make = REQUESTS[path];
        if (make === undefined) continue; // the test above names it
        const request = await make(server, state);
        const response = await send(server, request);
        statuses.push(`${path} ${response.status}`);
        problems.push(...(await mismatches(ajv, `GET ${path}`, operation, response)));
      }
      expect(problems).toEqual([]);
      // Each was a real answer, not a refusal: the realistic requests above succeed.
      expect(statuses.filter((s) => !/ [23]\d\d$/.test(s))).toEqual([]);
    });

    it('answers every GET route without credentials or parameters as its error schemas say', async () => {
      // The error answers (no session, no token, missing parameters, unknown ids) are documented too.
      const document = await documentOf(server);
      const ajv = newAjv();
      const problems: string[] = [];
      for (const [path, operation] of getOperations(document)) {
        const bare = path.replace(/\{[^}]+\}/g, '0');
        const response = await server.fetch(bare, { redirect: 'manual' });
        problems.push(...(await mismatches(ajv, `GET ${bare} (bare)`, operation, response)));
      }
      expect(problems).toEqual([]);
    });
  },
);
