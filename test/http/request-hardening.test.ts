/**
 * docs/security.md: state-changing calls compare `Origin` with BASE_URL's origin (not the request's Host),
 * a wrong method on a known path answers 405 with `Allow` in that path's convention, and METRICS_TOKEN
 * protects /metrics.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startTestServer } from '../helpers/server.js';

/** A raw HTTP request, so the Host header can be what a DNS-rebinding page would send. */
function send(
  server: TestServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  const url = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('state-changing calls (CSRF Origin check)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await server.ctx.users.create(7_000_000_001, 'a long enough password', 'user');
  });
  afterAll(async () => server?.close());

  const login = JSON.stringify({ uin: 7_000_000_001, password: 'a long enough password' });

  it("refuses an Origin that matches the request's Host but not BASE_URL (DNS rebinding)", async () => {
    const port = new URL(server.baseUrl).port;
    const answer = await send(
      server,
      'POST',
      '/v1/account/login',
      {
        host: `rebound.attacker.example:${port}`,
        origin: `http://rebound.attacker.example:${port}`,
        'content-type': 'application/json',
      },
      login,
    );
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text)).toEqual({ code: 4, msg: 'cross-origin request refused', data: {} });
  });

  it("accepts BASE_URL's origin", async () => {
    const answer = await send(
      server,
      'POST',
      '/v1/account/login',
      { origin: server.baseUrl, 'content-type': 'application/json' },
      login,
    );
    expect(answer.status).toBe(200);
  });
});

describe('a wrong method on a known path', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ transport: 'inject' });
  });
  afterAll(async () => server?.close());

  it('answers 405 with Allow in the envelope on /v1/account', async () => {
    const answer = await server.fetch(`/v1/account/login`);
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
    expect(await answer.json()).toEqual({ code: 1, msg: expect.stringMatching(/GET.*POST/), data: {} });
  });

  it('answers 405 with Allow for a path with a parameter', async () => {
    const answer = await server.fetch(`/v1/admin/users/10001`, { method: 'PUT' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD, PATCH');
    expect(await answer.json()).toMatchObject({ code: 1, data: {} });
  });

  it('answers 405 with Allow as RFC 6749 JSON on the token endpoint', async () => {
    const answer = await server.fetch(`/v1/oauth2/token`);
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
    expect(await answer.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  it('answers 405 with Allow in the legacy envelope on get-user-info', async () => {
    const answer = await server.fetch(`/v1/oauth2/get-user-info`, { method: 'DELETE' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toMatch(/\bGET\b/);
    expect(await answer.json()).toEqual({
      code: 1,
      msg: expect.stringMatching(/^invalid_request: /),
      data: {},
    });
  });

  it('still answers 404 to a path that does not exist', async () => {
    const answer = await server.fetch(`/v1/nothing-here`, { method: 'DELETE' });
    expect(answer.status).toBe(404);
    expect(answer.headers.get('allow')).toBeNull();
  });
});

describe('GET /metrics', () => {
  const TOKEN = 'a-metrics-token-of-some-length';
  let open: TestServer;
  let guarded: TestServer;
  beforeAll(async () => {
    open = await startTestServer({ transport: 'inject' });
    guarded = await startTestServer({ transport: 'inject', env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await open?.close();
    await guarded?.close();
  });

  it('is open when METRICS_TOKEN is not set', async () => {
    expect((await open.fetch(`/metrics`)).status).toBe(200);
  });

  it('answers 401 without the bearer token, or with a wrong one, when METRICS_TOKEN is set', async () => {
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, TOKEN]) {
      const answer = await guarded.fetch(`/metrics`, {
        headers: authorization === undefined ? {} : { authorization },
      });
      expect(answer.status, String(authorization)).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(await answer.text()).not.toContain('campus_sso_');
    }
  });

  it('answers the metrics with the bearer token', async () => {
    const answer = await guarded.fetch(`/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('campus_sso_http_requests_total');
  });
});
