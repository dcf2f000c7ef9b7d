/**
 * docs/security.md, "every malformed input → documented 4xx": every route that exists is fed wrong types,
 * missing and unknown fields, oversized, non-UTF-8, non-JSON and empty bodies, and numbers too big for a uin.
 * Each must answer a 4xx in its route's convention with a message that says what is wrong — never a 500,
 * never a stack trace. Also the security headers (docs/security.md) and the operations endpoints
 * (docs/operations.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseSuiteOptions, describeOnDatabases, signedInUser } from '../helpers/fixture.js';
import { Browser } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

type Style = 'envelope' | 'legacy' | 'oauth';

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly body: Record<string, unknown>;
  readonly headers: Headers;
}

const PASSWORD = 'correct horse battery staple';
const INVALID_UTF8 = Buffer.from([0x7b, 0x22, 0x75, 0x22, 0x3a, 0xff, 0x7d]); // {"u":<0xff>}
const ONE_MEGABYTE_JSON = JSON.stringify({ uin: 10001, password: 'x'.repeat(1024 * 1024) });
const TWO_TO_THE_64 = '18446744073709551616';
const STACK_TRACE = /\n\s+at |node_modules|\.(?:ts|js):\d+|\/src\/|\/work\//;

/** Answers the response read as JSON, after checking it is a clean 4xx in the route's convention. */
async function expectClean4xx(response: Response, style: Style): Promise<Answer> {
  const text = await response.text();
  expect(response.status, `status of ${text}`).toBeGreaterThanOrEqual(400);
  expect(response.status, `status of ${text}`).toBeLessThan(500);
  expect(text).not.toMatch(STACK_TRACE);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`not JSON (${response.status}): ${text.slice(0, 200)}`);
  }
  if (style === 'oauth') {
    expect(body).toEqual({ error: expect.any(String), error_description: expect.any(String) });
    expect(body.error_description).not.toBe('');
  } else {
    expect(body).toEqual({ code: expect.any(Number), msg: expect.any(String), data: expect.any(Object) });
    // Code 3 (an invalid sign-in link) says which cause in data.reason; every other error has empty data.
    if (body.code !== 3) expect(body.data).toEqual({});
    expect(body.code).not.toBe(0);
    expect(body.msg).not.toBe('');
    if (style === 'legacy' && body.code !== -1) expect(body.msg).toMatch(/^[a-z_]+: /);
  }
  return { status: response.status, text, body, headers: response.headers };
}

interface Client {
  readonly id: string;
  readonly secret: string;
}

interface Probe {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly style: Style;
  /** How the route's body is encoded. */
  readonly encoding: 'json' | 'form' | 'none';
  /** A body of the right shape (for a registered client), that the variations below break one way each. */
  readonly valid?: (client: Client) => Record<string, unknown>;
  /** Signed in as an admin (admin routes refuse everyone else before reading the body). */
  readonly admin?: boolean;
}

const PROBES: readonly Probe[] = [
  {
    name: 'account login',
    method: 'POST',
    path: '/v1/account/login',
    style: 'envelope',
    encoding: 'json',
    valid: (_client) => ({ uin: 10001, password: PASSWORD }),
  },
  { name: 'account logout', method: 'POST', path: '/v1/account/logout', style: 'envelope', encoding: 'none' },
  {
    name: 'account password',
    method: 'POST',
    path: '/v1/account/password',
    style: 'envelope',
    encoding: 'json',
    valid: (_client) => ({ current_password: PASSWORD, new_password: 'another long password' }),
  },
  {
    name: 'account consent withdrawal',
    method: 'DELETE',
    path: '/v1/account/consents/AnyClientId12345',
    style: 'envelope',
    encoding: 'none',
  },
  {
    name: 'admin apps',
    method: 'POST',
    path: '/v1/admin/apps',
    style: 'envelope',
    encoding: 'json',
    admin: true,
    valid: (_client) => ({ name: 'Library', emoji: '📚', redirect_uris: ['https://library.example.edu/cb'] }),
  },
  {
    name: 'admin users',
    method: 'POST',
    path: '/v1/admin/users',
    style: 'envelope',
    encoding: 'json',
    admin: true,
    valid: (_client) => ({ uin: 20001, password: PASSWORD, user_group: 'member' }),
  },
  {
    name: 'legacy get-access-token',
    method: 'POST',
    path: '/v1/oauth2/get-access-token',
    style: 'legacy',
    encoding: 'json',
    valid: (client) => ({ client_id: client.id, client_secret: client.secret, code: 'code' }),
  },
  {
    name: 'oauth token',
    method: 'POST',
    path: '/v1/oauth2/token',
    style: 'oauth',
    encoding: 'form',
    valid: (client) => ({
      grant_type: 'authorization_code',
      code: 'code',
      redirect_uri: 'https://a.example/cb',
      client_id: client.id,
      client_secret: client.secret,
    }),
  },
];

function encode(probe: Probe, body: Record<string, unknown>): string {
  if (probe.encoding === 'form') {
    return new URLSearchParams(
      Object.entries(body).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
  }
  return JSON.stringify(body);
}

function contentType(probe: Probe): string {
  return probe.encoding === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
}

const SUITE: DatabaseSuiteOptions = {
  transport: 'inject',
  user: { group: 'admin', uin: 10001 },
  client: { redirectUris: ['https://a.example/cb'] },
};

describeOnDatabases('hardening', SUITE, (fixture) => {
  const { database, server } = fixture;
  const admin = fixture.user.browser;
  const member = new Browser(server);
  // The probes' own shape for a client: the registered one's id and secret.
  const client: Client = {
    get id() {
      return fixture.client.clientId;
    },
    get secret() {
      return fixture.client.clientSecret;
    },
  };

  beforeAll(async () => {
    await signedInUser(server, 'member', 10002, PASSWORD, member);
  });

  /** Sends a raw body to a probe's route, as the signed-in browser the route needs. */
  function send(
    probe: Probe,
    body: string | Buffer | undefined,
    type = contentType(probe),
  ): Promise<Response> {
    const browser = probe.admin ? admin : member;
    const headers: Record<string, string> = { origin: server.baseUrl, 'content-type': type };
    const cookie = browser.sessionCookie;
    if (cookie) headers.cookie = cookie;
    return server.fetch(probe.path, {
      method: probe.method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
  }

  describe.each(PROBES)('$method $path ($name)', (probe) => {
    it('answers a 1 MB body 413 (or 4xx) with a clear message, never 500', async () => {
      const answer = await expectClean4xx(await send(probe, ONE_MEGABYTE_JSON), probe.style);
      expect(answer.status).toBe(413);
      expect(answer.text).toMatch(/too large/);
    });

    it('answers a body that is not valid UTF-8 400, never 500', async () => {
      const answer = await expectClean4xx(await send(probe, INVALID_UTF8), probe.style);
      expect(answer.status).toBe(400);
    });

    it('answers a body of the wrong content type 4xx, never 500', async () => {
      await expectClean4xx(await send(probe, 'hello', 'application/xml'), probe.style);
    });

    if (probe.encoding === 'json' || probe.encoding === 'none') {
      it('answers invalid JSON 400 saying it is not valid JSON', async () => {
        const answer = await expectClean4xx(await send(probe, '{"uin": 1,'), probe.style);
        expect(answer.status).toBe(400);
        expect(answer.text).toMatch(/JSON/);
      });
    }

    const validFor = probe.valid;
    if (validFor === undefined) return;
    const valid = (): Record<string, unknown> => validFor(client);

    it('answers an empty body 400 (or 401 invalid_client where client authentication comes first)', async () => {
      const answer = await expectClean4xx(await send(probe, ''), probe.style);
      expect(probe.style === 'envelope' ? [400] : [400, 401]).toContain(answer.status);
    });

    it('answers a NUL character (U+0000) in a field 400 in its own convention, never 500', async () => {
      const body = valid();
      const [field] = Object.entries(body).find(([, value]) => typeof value === 'string') ?? [];
      expect(field).toBeDefined();
      body[field!] = `${String(body[field!])}\u0000`;
      const answer = await expectClean4xx(await send(probe, encode(probe, body)), probe.style);
      expect(answer.status).toBe(400);
      expect(answer.text).toContain('U+0000');
      if (probe.style === 'oauth') expect(answer.body.error).toBe('invalid_request');
      else expect(answer.body.code).toBe(1);
    });

    it('answers a missing field 400 naming the field', async () => {
      const [missing] = Object.keys(valid());
      const body = valid();
      delete body[missing as string];
      const answer = await expectClean4xx(await send(probe, encode(probe, body)), probe.style);
      expect(answer.status).toBe(400);
      expect(answer.text).toContain(missing);
    });

    it('answers a field of the wrong type 400 naming the field', async () => {
      const [field] = Object.keys(valid());
      const body =
        probe.encoding === 'form'
          ? `${encode(probe, valid())}&${field}=again` // a repeated form parameter (RFC 6749 §3.1)
          : JSON.stringify({ ...valid(), [field as string]: { nested: [true] } });
      const answer = await expectClean4xx(await send(probe, body), probe.style);
      expect(answer.status).toBe(400);
      expect(answer.text).toContain(field);
    });

    if (probe.encoding === 'json') {
      if (probe.style === 'envelope') {
        it('answers an unknown field 400 naming it', async () => {
          const answer = await expectClean4xx(
            await send(probe, JSON.stringify({ ...valid(), is_admin: true })),
            probe.style,
          );
          expect(answer.status).toBe(400);
          expect(answer.text).toContain('is_admin');
        });
      } else {
        // RFC 6749 §3.2: unrecognized parameters are ignored; the request then fails on its own merits.
        it('ignores an unknown field and still answers a clean 4xx', async () => {
          await expectClean4xx(
            await send(probe, JSON.stringify({ ...valid(), is_admin: true })),
            probe.style,
          );
        });
      }

      it('answers a JSON array, a string or null instead of an object 400', async () => {
        for (const body of ['[]', '"text"', 'null', '1']) {
          const answer = await expectClean4xx(await send(probe, body), probe.style);
          expect(answer.status).toBe(400);
        }
      });

      it('answers a __proto__ field 4xx and is not polluted by it', async () => {
        const answer = await expectClean4xx(
          await send(probe, `{"__proto__":{"polluted":true},${JSON.stringify(valid()).slice(1)}`),
          probe.style,
        );
        if (probe.style === 'envelope') expect(answer.status).toBe(400);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      });
    }
  });

  describe('numbers too big for a uin', () => {
    it.each([
      ['2^64', TWO_TO_THE_64],
      ['2^53', '9007199254740992'],
      ['1e400 (Infinity)', '1e400'],
      ['a fraction', '10001.5'],
      ['zero', '0'],
      ['a negative number', '-10001'],
    ])('POST /v1/account/login answers uin %s 400 code 1 naming uin', async (_name, uin) => {
      const response = await member.call(
        'POST',
        '/v1/account/login',
        `{"uin":${uin},"password":"${PASSWORD}"}`,
      );
      const answer = await expectClean4xx(response, 'envelope');
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 400, code: 1 });
      expect(answer.body.msg).toMatch(/uin/);
    });

    it.each([
      ['2^64', TWO_TO_THE_64],
      ['2^53', '9007199254740992'],
      ['a 30-digit string', '"123456789012345678901234567890"'],
    ])('POST /v1/admin/users answers uin %s 400 code 1 naming uin', async (_name, uin) => {
      const response = await admin.call(
        'POST',
        '/v1/admin/users',
        `{"uin":${uin},"password":"${PASSWORD}","user_group":"member"}`,
      );
      const answer = await expectClean4xx(response, 'envelope');
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 400, code: 1 });
      expect(answer.body.msg).toMatch(/uin/);
    });

    it('PATCH /v1/admin/users/:uin answers a uin of 2^64 in the path 4xx, never 500', async () => {
      const response = await admin.call('PATCH', `/v1/admin/users/${TWO_TO_THE_64}`, {
        user_group: 'member',
      });
      await expectClean4xx(response, 'envelope');
    });
  });

  describe('GET routes with malformed queries', () => {
    it.each([
      ['/v1/admin/users?offset=-1', 'offset'],
      ['/v1/admin/users?limit=abc', 'limit'],
      ['/v1/admin/users?group=wizard', 'group'],
      ['/v1/admin/users?limit=1&limit=2', 'limit'],
      ['/v1/admin/users?unknown=1', 'unknown'],
    ])('GET %s answers 400 code 1 naming %s', async (path, field) => {
      const answer = await expectClean4xx(await admin.call('GET', path), 'envelope');
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 400, code: 1 });
      expect(answer.body.msg).toContain(field);
    });

    it('GET /v1/admin/apps/:client_id answers a malformed client_id 4xx, never 500', async () => {
      await expectClean4xx(
        await admin.call('GET', `/v1/admin/apps/${encodeURIComponent('<script>')}`),
        'envelope',
      );
    });

    it.each([
      '/v1/oauth2/app-info?client_id=%00&redirect_uri=https%3A%2F%2Fa.example%2Fcb',
      '/v1/oauth2/authorize?response_type=code&client_id=%00&redirect_uri=https%3A%2F%2Fa.example%2Fcb',
      '/v1/admin/apps/%00',
    ])('GET %s answers a NUL character 400 code 1, never 500', async (path) => {
      const answer = await expectClean4xx(await admin.call('GET', path), 'envelope');
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 400, code: 1 });
      expect(answer.body.msg).toContain('U+0000');
    });

    it('GET /v1/oauth2/app-info answers missing parameters 400 code 1 or 3', async () => {
      const answer = await expectClean4xx(await member.call('GET', '/v1/oauth2/app-info'), 'envelope');
      expect(answer.status).toBe(400);
      expect([1, 3]).toContain(answer.body.code);
    });

    it('GET /v1/oauth2/get-user-info answers a garbage bearer token 401 code -1', async () => {
      const response = await server.fetch(`/v1/oauth2/get-user-info`, {
        headers: { authorization: `Bearer ${'\u00ff'.repeat(10)}` },
      });
      const answer = await expectClean4xx(response, 'legacy');
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 401, code: -1 });
    });
  });

  describe('unknown paths', () => {
    it.each([
      ['GET', '/no/such/page'],
      ['GET', '/v1/account/unknown'],
      ['GET', '/../../etc/passwd'],
      ['GET', '/v1/%2e%2e/%2e%2e/etc/passwd'],
    ])('%s %s answers 404 code 5 naming no such endpoint', async (method, path) => {
      const response = await server.fetch(path, { method });
      const answer = await expectClean4xx(response, 'envelope');
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 404, code: 5 });
    });

    it.each([
      ['PUT', '/v1/account/login', 'POST'],
      ['GET', '/v1/account/login', 'POST'],
      ['DELETE', '/healthz', 'GET, HEAD'],
    ])('%s %s (a known path) answers 405 code 1 with Allow: %s', async (method, path, allow) => {
      const response = await server.fetch(path, { method });
      const answer = await expectClean4xx(response, 'envelope');
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 405, code: 1 });
      expect(answer.headers.get('allow')).toBe(allow);
    });

    it('answers a malformed percent-encoding in the path 400, never 500 or a stack trace', async () => {
      for (const path of ['/v1/account/%E0%A4%A', '/v1/account/consents/%ff']) {
        const response = await server.fetch(path, { method: 'DELETE' });
        expect(response.status).toBe(400);
        expect(await response.text()).not.toMatch(STACK_TRACE);
      }
    });

    it('answers a malformed percent-encoding in the path in the envelope', async () => {
      await expectClean4xx(await server.fetch(`/v1/account/%E0%A4%A`), 'envelope');
    });

    it('answers an unknown path with a 1 MB, invalid or non-UTF-8 body 4xx, never 500', async () => {
      for (const body of [ONE_MEGABYTE_JSON, '{"a":', INVALID_UTF8]) {
        const response = await server.fetch(`/no/such/endpoint`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        await expectClean4xx(response, 'envelope');
      }
    });
  });

  describe('security headers', () => {
    function expectSecurityHeaders(response: Response): void {
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/frame-ancestors 'none'/);
      expect(csp).toMatch(/default-src 'self'/);
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }

    it.each([
      ['GET', '/'],
      ['GET', '/v1/account/me'],
      ['POST', '/v1/account/login'],
      ['GET', '/healthz'],
      ['GET', '/no/such/page'],
      ['GET', '/v1/oauth2/get-user-info'],
      ['GET', '/.well-known/oauth-authorization-server'],
    ])(
      '%s %s carries CSP frame-ancestors none, X-Frame-Options DENY and Referrer-Policy no-referrer',
      async (method, path) => {
        const response = await server.fetch(path, { method, redirect: 'manual' });
        expect(response.status).toBeLessThan(500 + (path === '/' ? 4 : 0)); // `/` is 503 when web/ is not built
        expectSecurityHeaders(response);
      },
    );

    it('answers an error 4xx with the security headers too', async () => {
      const response = await member.call('POST', '/v1/account/login', '{"uin":');
      expect(response.status).toBe(400);
      expectSecurityHeaders(response);
    });

    it('never grants CORS to another origin', async () => {
      const preflight = await server.fetch(`/v1/account/login`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://evil.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      const simple = await server.fetch(`/v1/account/me`, {
        headers: { origin: 'https://evil.example' },
      });
      expect(simple.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  describe('GET /healthz', () => {
    it('answers 200 while the process is up', async () => {
      const response = await server.fetch(`/healthz`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok' });
    });
  });

  describe('GET /readyz', () => {
    it('answers 200 and names the database while it is reachable', async () => {
      const response = await server.fetch(`/readyz`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok', database });
    });
  });

  describe('GET /metrics', () => {
    it('answers Prometheus text with campus_sso_http_requests_total by route and status', async () => {
      await server.fetch(`/healthz`);
      const response = await server.fetch(`/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await response.text();
      expect(text).toMatch(/^# HELP campus_sso_http_requests_total /m);
      expect(text).toMatch(/^# TYPE campus_sso_http_requests_total counter$/m);
      expect(text).toMatch(
        /^campus_sso_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+$/m,
      );
      expect(text).toMatch(/^campus_sso_http_request_duration_seconds_bucket\{/m);
    });

    it('counts every answer and times it, per route and status', async () => {
      const count = async (): Promise<number[]> => {
        const text = await (await server.fetch(`/metrics`)).text();
        return [
          /^campus_sso_http_requests_total\{method="GET",route="\/healthz",status="200"\} (\d+)$/m,
          /^campus_sso_http_request_duration_seconds_count\{route="\/healthz"\} (\d+)$/m,
        ].map((pattern) => Number(pattern.exec(text)?.[1] ?? 0));
      };
      await server.fetch(`/healthz`);
      const before = await count();
      for (let i = 0; i < 3; i++) await server.fetch(`/healthz`);
      expect(await count()).toEqual(before.map((n) => n + 3));
    });

    it('counts what no route matched as route "unmatched", and a HEAD once under its own method', async () => {
      const count = async (): Promise<number[]> => {
        const text = await (await server.fetch(`/metrics`)).text();
        return [
          /^campus_sso_http_requests_total\{method="GET",route="unmatched",status="404"\} (\d+)$/m,
          /^campus_sso_http_request_duration_seconds_count\{route="unmatched"\} (\d+)$/m,
          /^campus_sso_http_requests_total\{method="HEAD",route="\/healthz",status="200"\} (\d+)$/m,
          /^campus_sso_http_requests_total\{method="GET",route="\/healthz",status="200"\} (\d+)$/m,
        ].map((pattern) => Number(pattern.exec(text)?.[1] ?? 0));
      };
      const before = await count();
      for (let i = 0; i < 2; i++) await server.fetch(`/no/such/path`);
      await server.fetch(`/healthz`, { method: 'HEAD' });
      const [missed, timed, head, get] = before;
      expect(await count()).toEqual([(missed ?? 0) + 2, (timed ?? 0) + 2, (head ?? 0) + 1, get]);
    });

    it('never leaks query strings or tokens into metric labels', async () => {
      await server.fetch(`/v1/oauth2/app-info?client_id=SECRETSECRET1234&redirect_uri=x`);
      await server.fetch(`/no/such/SECRETPATH`);
      const text = await (await server.fetch(`/metrics`)).text();
      expect(text).not.toContain('SECRETSECRET1234');
      expect(text).not.toContain('SECRETPATH');
    });
  });
});

describe('GET /readyz without a database', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ transport: 'inject', database: 'sqlite' });
  });
  afterAll(async () => {
    await server?.close().catch(() => undefined);
  });

  it('answers 503 once the database is gone, and /healthz still answers 200', async () => {
    await server.ctx.store.close();
    const ready = await server.fetch(`/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'unavailable', database: 'sqlite' });
    expect((await server.fetch(`/healthz`)).status).toBe(200);
  });
});
