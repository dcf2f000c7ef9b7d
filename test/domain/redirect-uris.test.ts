/**
 * Redirect URI registration rules (docs/interface.md#resources, RFC 9700 §2.1, RFC 8252 §7.3) and parameter
 * appending.
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_REDIRECT_URIS,
  appendParameters,
  redirectUriProblemMessage,
  redirectUriListProblemMessage,
} from '../../src/domain/redirect-uris.js';

describe('redirectUriProblemMessage', () => {
  it.each([
    'https://library.example.edu/callback',
    'https://library.example.edu/callback?tenant=a',
    'https://library.example.edu:8443/cb',
    'http://localhost/cb',
    'http://localhost:3000/cb',
    'http://127.0.0.1:8000/cb',
    'http://127.1.2.3/cb',
    'http://[::1]:8080/cb',
  ])('accepts %s', (uri) => {
    expect(redirectUriProblemMessage(uri)).toBeUndefined();
  });

  it.each([
    ['http://library.example.edu/cb', /must use https/],
    ['http://localhost.evil.example/cb', /must use https/],
    ['http://127.0.0.1.nip.io/cb', /must use https/],
    ['http://10.0.0.1/cb', /must use https/],
  ])('refuses plain http to a host that is not loopback: %s', (uri, problem) => {
    expect(redirectUriProblemMessage(uri)).toMatch(problem);
  });

  it.each(['https://library.example.edu/cb#done', 'https://library.example.edu/cb#', 'http://localhost/#/x'])(
    'refuses a fragment: %s',
    (uri) => {
      expect(redirectUriProblemMessage(uri)).toMatch(/fragment/);
    },
  );

  it.each(['/callback', 'callback', '//library.example.edu/cb', ''])(
    'refuses a relative URI: "%s"',
    (uri) => {
      expect(redirectUriProblemMessage(uri)).toMatch(/absolute/);
    },
  );

  it.each(['javascript:alert(1)', 'data:text/html,hi', 'ftp://files.example.edu/cb', 'file:///etc/passwd'])(
    'refuses another scheme: %s',
    (uri) => {
      expect(redirectUriProblemMessage(uri)).toBeDefined();
    },
  );

  it('refuses a URI longer than 2000 characters', () => {
    expect(redirectUriProblemMessage(`https://a.example/${'x'.repeat(2000)}`)).toMatch(/2000/);
  });
});

describe('redirectUriProblemMessage: only the canonical form (WHATWG URL serialization) is registered', () => {
  it.each([
    [' https://a.example/cb', /whitespace/],
    ['https://a.example/cb\n', /whitespace/],
    ['https://a.example/c b', /whitespace/],
    ['https://a.example/c\tb', /whitespace/],
    ['https://a.example/cb\u00a0', /whitespace/],
  ])('refuses whitespace anywhere: %j', (uri, problem) => {
    expect(redirectUriProblemMessage(uri)).toMatch(problem);
  });

  it.each(['https:/\\evil.example', 'https://a.example\\@evil.example/', 'https://a.example/cb\\x'])(
    'refuses a backslash: %s',
    (uri) => {
      expect(redirectUriProblemMessage(uri)).toMatch(/backslash/);
    },
  );

  it.each(['https://user:pass@a.example/cb', 'https://user@a.example/cb', 'https://:pw@a.example/cb'])(
    'refuses credentials: %s',
    (uri) => {
      expect(redirectUriProblemMessage(uri)).toMatch(/user name or password/);
    },
  );

  it.each([
    ['http://0x7f000001/', 'http://127.0.0.1/'],
    ['HTTPS://A.example/', 'https://a.example/'],
    ['https://a.example', 'https://a.example/'],
    ['https://a.example:443/cb', 'https://a.example/cb'],
    ['https://a.example/./x/../cb', 'https://a.example/cb'],
    ['https://a.example/ä', 'https://a.example/%C3%A4'],
    ['https://bücher.example/cb', 'https://xn--bcher-kva.example/cb'],
  ])('refuses %s, whose canonical form differs, and names that form', (uri, canonical) => {
    expect(redirectUriProblemMessage(uri)).toBe(`is not in canonical form; write it as ${canonical}`);
  });

  it.each([
    'https://a.example/',
    'https://a.example/cb?x=1&y=%20',
    'http://127.0.0.1:8080/cb',
    'http://[::1]/cb',
  ])('accepts a canonical form: %s', (uri) => {
    expect(redirectUriProblemMessage(uri)).toBeUndefined();
  });
});

describe('redirectUriListProblemMessage', () => {
  const uris = (n: number): string[] => Array.from({ length: n }, (_, i) => `https://app.example.edu/cb${i}`);

  it('accepts 1 to 10 valid URIs', () => {
    expect(redirectUriListProblemMessage(uris(1))).toBeUndefined();
    expect(redirectUriListProblemMessage(uris(MAX_REDIRECT_URIS))).toBeUndefined();
  });

  it('refuses none', () => {
    expect(redirectUriListProblemMessage([])).toMatch(/at least one/);
  });

  it('refuses 11', () => {
    expect(redirectUriListProblemMessage(uris(11))).toMatch(/at most 10/);
  });

  it('refuses a repeated URI', () => {
    expect(redirectUriListProblemMessage(['https://a.example/cb', 'https://a.example/cb'])).toMatch(/repeat/);
  });

  it('names the URI that is wrong', () => {
    expect(redirectUriListProblemMessage(['https://a.example/cb', 'http://b.example/cb'])).toMatch(
      /"http:\/\/b\.example\/cb"/,
    );
  });
});

describe('appendParameters', () => {
  it('keeps the query the registered URI already has (RFC 6749 §3.1.2)', () => {
    const url = new URL(
      appendParameters('https://a.example/cb?tenant=x&lang=zh', { code: 'abc', state: 's' }),
    );
    expect([...url.searchParams]).toEqual([
      ['tenant', 'x'],
      ['lang', 'zh'],
      ['code', 'abc'],
      ['state', 's'],
    ]);
    expect(url.origin + url.pathname).toBe('https://a.example/cb');
  });

  it('URL-encodes the values so that they come back unchanged', () => {
    const state = 'a b&c=d/é?#%';
    const href = appendParameters('https://a.example/cb', { state, error: 'access_denied' });
    expect(href).not.toContain(' ');
    expect(href).not.toContain('#');
    expect(href).not.toContain('&c=d');
    expect(new URL(href).searchParams.get('state')).toBe(state);
    expect(new URL(href).searchParams.get('error')).toBe('access_denied');
  });

  it('leaves out parameters that are undefined', () => {
    expect(appendParameters('https://a.example/cb', { code: 'abc', state: undefined })).toBe(
      'https://a.example/cb?code=abc',
    );
  });
});
