/**
 * Property tests (fast-check): random and hostile input thrown at the token and user-information endpoints
 * and at the authorization decision. Whatever comes in: never a 500, never a token for a bad code, never a
 * redirect to a URI the app has not registered.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DatabaseSuiteOptions, describeOnDatabases } from '../helpers/fixture.js';
import { basic, obtainCode, REDIRECT_URI } from './support.js';

const RUNS = 60;

/** Printable ASCII: what an HTTP header value can carry (fetch refuses control characters). */
const headerValue = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 80,
});

/** Strings that tend to break parsers: encodings, injection, huge, empty, unicode, look-alikes. */
const hostileString = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '%',
    '%zz',
    '%C3%28',
    '\u0000',
    '\ud800',
    "' OR '1'='1",
    '"; DROP TABLE access_tokens; --',
    '../../etc/passwd',
    '<script>alert(1)</script>',
    '${7*7}',
    '__proto__',
    'constructor',
    'null',
    '[]',
    '{}',
    'a'.repeat(5000),
    '😀'.repeat(100),
  ),
);

const FORM_KEYS = [
  'grant_type',
  'code',
  'redirect_uri',
  'code_verifier',
  'refresh_token',
  'scope',
  'client_id',
  'client_secret',
  '__proto__',
  'constructor',
];

/** A raw form body: known and unknown names, encoded or raw (possibly malformed) values, repeats. */
const formBody = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...FORM_KEYS), fc.string({ maxLength: 12 })),
      hostileString,
      fc.boolean(),
    ),
    { maxLength: 8 },
  )
  .map((pairs) =>
    pairs
      .map(([key, value, raw]) => {
        const encode = (s: string): string => {
          try {
            return encodeURIComponent(s);
          } catch {
            return s; // lone surrogates: send them raw
          }
        };
        return `${encode(key)}=${raw ? value : encode(value)}`;
      })
      .join('&'),
  );

const contentType = fc.constantFrom(
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'application/json',
  'text/plain',
  'multipart/form-data; boundary=x',
);

function safeBody(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

const SUITE: DatabaseSuiteOptions = {
  transport: 'inject',
  client: { redirectUris: [REDIRECT_URI, 'http://127.0.0.1:8765/cb?x=1'] },
  user: 'member',
};

describeOnDatabases('hostile input', SUITE, (fixture) => {
  const { server, client, user } = fixture;
  const { browser } = user;

  describe('POST /v1/oauth2/token', () => {
    it('never answers 500 and never issues a token for random input', async () => {
      await fc.assert(
        fc.asyncProperty(
          formBody,
          contentType,
          fc.option(fc.oneof(headerValue, fc.constant(basic(client.clientId, client.clientSecret))), {
            nil: undefined,
          }),
          async (body, type, authorization) => {
            const response = await server.fetch(`/v1/oauth2/token`, {
              method: 'POST',
              headers: { 'content-type': type, ...(authorization !== undefined ? { authorization } : {}) },
              body: safeBody(body),
            });
            const text = await response.text();
            expect([400, 401, 413, 415]).toContain(response.status);
            expect(JSON.parse(text)).toHaveProperty('error');
          },
        ),
        { numRuns: RUNS },
      );
    });

    it('never issues a token for a tampered code, redirect_uri or verifier', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 42 }),
          fc.constantFrom('A', '-', '_', '0', ''),
          hostileString,
          async (position, replacement, redirectSuffix) => {
            const code = await obtainCode(browser, client);
            const tampered = code.slice(0, position) + replacement + code.slice(position + 1);
            const attempts: Record<string, string>[] = [];
            if (tampered !== code) attempts.push({ code: tampered, redirect_uri: REDIRECT_URI });
            if (redirectSuffix !== '') attempts.push({ code, redirect_uri: REDIRECT_URI + redirectSuffix });
            attempts.push({ code, redirect_uri: REDIRECT_URI, code_verifier: 'v'.repeat(43) });
            for (const form of attempts) {
              const response = await server.fetch(`/v1/oauth2/token`, {
                method: 'POST',
                headers: {
                  'content-type': 'application/x-www-form-urlencoded',
                  authorization: basic(client.clientId, client.clientSecret),
                },
                body: new URLSearchParams({ grant_type: 'authorization_code', ...form }).toString(),
              });
              expect(response.status).toBe(400);
            }
          },
        ),
        { numRuns: 25 },
      );
    });
  });

  describe('POST /v1/oauth2/get-access-token', () => {
    it('never answers 500 and never issues a token for random JSON', async () => {
      const field = fc.oneof(
        hostileString,
        fc.jsonValue({ maxDepth: 2 }),
        fc.constant(client.clientId),
        fc.constant(client.clientSecret),
      );
      const body = fc.oneof(
        fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
        fc
          .record(
            { client_id: field, client_secret: field, code: field, code_verifier: field },
            { requiredKeys: [] },
          )
          .map((value) => JSON.stringify(value)),
        hostileString,
      );
      await fc.assert(
        fc.asyncProperty(
          body,
          fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain'),
          async (text, type) => {
            const response = await server.fetch(`/v1/oauth2/get-access-token`, {
              method: 'POST',
              headers: { 'content-type': type },
              body: safeBody(text),
            });
            const answer = (await response.json()) as { code: number; msg: string; data: unknown };
            expect([400, 401, 413, 415]).toContain(response.status);
            expect(answer.code).not.toBe(0);
            expect(answer.data).toEqual({});
          },
        ),
        { numRuns: RUNS },
      );
    });
  });

  describe('GET /v1/oauth2/get-user-info', () => {
    it('answers 401 with a Bearer challenge to any forged Authorization header', async () => {
      const header = fc.oneof(
        headerValue,
        headerValue.map((v) => `Bearer ${v}`),
        fc.base64String().map((v) => `Bearer ${v}`),
      );
      await fc.assert(
        fc.asyncProperty(header, async (authorization) => {
          const response = await server.fetch(`/v1/oauth2/get-user-info`, {
            headers: { authorization },
          });
          expect(response.status).toBe(401);
          expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="campus-sso"/);
          expect(((await response.json()) as { code: number }).code).toBe(-1);
        }),
        { numRuns: RUNS },
      );
    });
  });

  describe('POST /v1/oauth2/authorize', () => {
    it('never redirects anywhere but a registered URI', async () => {
      const registered = client.app.redirectUris;
      const redirectUri = fc.oneof(
        hostileString,
        fc.constantFrom(...registered),
        fc.tuple(fc.constantFrom(...registered), hostileString).map(([uri, suffix]) => uri + suffix),
        fc.webUrl(),
        fc.constantFrom(
          'https://evil.example/cb',
          '//evil.example',
          'javascript:alert(1)',
          'HTTPS://APP.EXAMPLE.EDU/callback',
        ),
      );
      const extra = fc.record(
        {
          state: hostileString,
          response_type: fc.oneof(hostileString, fc.constant('code')),
          scope: fc.oneof(hostileString, fc.constant('openid')),
          code_challenge: hostileString,
          code_challenge_method: fc.oneof(hostileString, fc.constantFrom('S256', 'plain')),
          nonce: hostileString,
          decision: fc.constantFrom('allow', 'deny'),
        },
        { requiredKeys: ['decision'] },
      );
      await fc.assert(
        fc.asyncProperty(redirectUri, extra, async (uri, params) => {
          const response = await browser.call('POST', '/v1/oauth2/authorize', {
            client_id: client.clientId,
            redirect_uri: uri,
            ...params,
          });
          const answer = (await response.json()) as { code: number; data: { redirect_to?: string } };
          expect(response.status).toBeLessThan(500);
          if (response.status === 200) {
            expect(registered).toContain(uri);
            const target = answer.data.redirect_to!;
            const url = new URL(target);
            const base = new URL(uri);
            expect(url.origin + url.pathname).toBe(base.origin + base.pathname);
            for (const [key, value] of base.searchParams) expect(url.searchParams.get(key)).toBe(value);
          } else {
            // Never a URL to go to: at most why the link does not work (docs/interface.md#the-envelope).
            expect(answer.data.redirect_to).toBeUndefined();
            for (const key of Object.keys(answer.data)) expect(['reason', 'name']).toContain(key);
          }
        }),
        { numRuns: RUNS },
      );
    });
  });
});
