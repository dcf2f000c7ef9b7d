/**
 * A `fetch` that reaches the server in-process through Fastify's `app.inject` (light-my-request): the same
 * routing, hooks, parsers and error handling as a request over a socket, without a port. It takes what the
 * global `fetch` takes and answers a real `Response`, so a suite moves from a socket to `inject` by calling
 * `server.fetch(path, init)` instead of `fetch(server.baseUrl + path, init)`.
 *
 * Requests are normalised by a real `Request` first (the body's default content type, a GET with a body
 * refused), and carry the headers Node's fetch adds itself (`accept`, `accept-language`, `sec-fetch-mode`,
 * `user-agent`). Redirects are followed as fetch follows them (RFC 9110 §15.4: a 303, or a 301/302 after a
 * POST, becomes a GET), but only on the server's own origin: anything else would need a socket, and says so.
 */
import type { FastifyInstance } from 'fastify';

/** What the global `fetch` takes, for the server of a suite: a path on it, or one of its absolute URLs. */
export type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * The URL a path or URL names on the server at `baseUrl`: a path is appended to it as it is (`//x` stays a
 * path, as `fetch(baseUrl + path)` reads it), anything else must be absolute.
 */
export function onServer(input: string | URL, baseUrl: string): URL {
  return new URL(typeof input === 'string' && input.startsWith('/') ? baseUrl + input : input);
}

/** What Node's fetch (undici) sends with every request unless told otherwise. */
const FETCH_DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
};

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
/** fetch's own limit (WHATWG Fetch §4.4, "redirect count"). */
const MAX_REDIRECTS = 20;

function injectHeaders(request: Request): Record<string, string> {
  const headers: Record<string, string> = { ...FETCH_DEFAULT_HEADERS };
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

function toResponse(
  injected: Awaited<ReturnType<FastifyInstance['inject']>>,
  url: string,
  redirected: boolean,
): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(injected.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, String(one));
  }
  const body = NULL_BODY_STATUSES.has(injected.statusCode) ? null : injected.rawPayload;
  const response = new Response(body, {
    status: injected.statusCode,
    statusText: injected.statusMessage,
    headers,
  });
  // A constructed Response has no URL; fetch's has the last one it asked for.
  Object.defineProperty(response, 'url', { value: url });
  Object.defineProperty(response, 'redirected', { value: redirected });
  return response;
}

/** The redirect fetch would follow from `response`, or undefined when the answer is final. */
function nextHop(request: Request, payload: Buffer | undefined, response: Response): Request | undefined {
  const location = response.headers.get('location');
  if (!REDIRECT_STATUSES.has(response.status) || location === null || request.redirect === 'manual') {
    return undefined;
  }
  if (request.redirect === 'error') throw new TypeError(`fetch: redirect to ${location} refused`);
  const target = new URL(location, request.url);
  const asGet =
    response.status === 303 ||
    ((response.status === 301 || response.status === 302) && request.method === 'POST');
  const headers = new Headers(request.headers);
  if (asGet) for (const name of ['content-type', 'content-length']) headers.delete(name);
  return new Request(target, {
    method: asGet ? 'GET' : request.method,
    headers,
    redirect: request.redirect,
    ...(asGet || payload === undefined ? {} : { body: payload }),
  });
}

/** A fetch for the server `app`, whose BASE_URL is `baseUrl`. */
export function injectFetch(app: FastifyInstance, baseUrl: string): Fetch {
  const origin = new URL(baseUrl).origin;
  return async (input, init) => {
    let request = new Request(onServer(input, baseUrl), init);
    for (let hops = 0; ; hops++) {
      const url = new URL(request.url);
      if (url.origin !== origin) {
        throw new Error(`inject fetch reaches only ${origin}: ${url.href} needs a socket`);
      }
      const payload = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
      const injected = await app.inject({
        method: request.method as 'GET',
        url: url.pathname + url.search,
        authority: url.host,
        headers: injectHeaders(request),
        ...(payload !== undefined ? { payload } : {}),
      });
      const response = toResponse(injected, url.href, hops > 0);
      const next = nextHop(request, payload, response);
      if (next === undefined) return response;
      if (hops >= MAX_REDIRECTS) throw new TypeError(`fetch: more than ${MAX_REDIRECTS} redirects`);
      request = next;
    }
  };
}
