/**
 * RFC 6749 §4.1.2.1 and §5.2: `error_description` carries only %x20-21 / %x23-5B / %x5D-7E (no `"`, no
 * backslash, nothing outside printable ASCII), wherever an OAuth error is answered: the JSON bodies and the
 * redirect URI's query (docs/security.md). The legacy envelope's `msg` is not an RFC 6749 field and keeps its words.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app-context.js';
import { render } from '../../src/http/responses.js';
import { errorResponse, responseUrl } from '../../src/oauth/authorization/response.js';
import * as errors from '../../src/oauth/errors.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import { json } from '../helpers/http.js';
import { authorizeRedirect, basic, postForm, REDIRECT_URI, signedInUser } from './support.js';

/** RFC 6749 §5.2: error_description = 1*( %x20-21 / %x23-5B / %x5D-7E ). */
const RFC_6749_DESCRIPTION = /^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/;

type ErrorClass = new (description: string, ...rest: never[]) => errors.OAuthError;

/** Every concrete error class the module exports, so a class added later is covered without a change here. */
const ERROR_CLASSES = (Object.values(errors) as unknown[]).filter(
  (value): value is ErrorClass => typeof value === 'function' && value.prototype instanceof errors.OAuthError,
);

const anyText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.constantFrom('use "code"', 'RFC 7636 §4.2', 'a\\b', 'line\nbreak', '…', 'naïve — 中文 😀'),
);

const ctx = { config: { issuer: 'https://sso.example.edu' } } as unknown as AppContext;
const redirect = {
  redirectUri: 'https://app.example.edu/cb?x=1',
  state: 's',
  responseMode: 'query',
} as const;

describe('error_description', () => {
  it('covers every error class of src/oauth/errors.ts', () => {
    expect(ERROR_CLASSES.length).toBeGreaterThanOrEqual(15);
  });

  it('renders only RFC 6749 characters in the JSON body, whatever the message', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ERROR_CLASSES), anyText, (ErrorClass, text) => {
        const error = new ErrorClass(text, ...([] as never[]));
        const body = render(error, 'oauth').body as Record<string, unknown>;
        if ('error_description' in body) {
          expect(body.error_description).toMatch(RFC_6749_DESCRIPTION);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('sends only RFC 6749 characters to the redirect URI, whatever the message', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ERROR_CLASSES), anyText, (ErrorClass, text) => {
        const error = new ErrorClass(text, ...([] as never[]));
        const url = new URL(responseUrl(errorResponse(ctx, redirect as never, error)));
        expect(url.searchParams.get('error_description')).toMatch(RFC_6749_DESCRIPTION);
      }),
      { numRuns: 400 },
    );
  });

  it('keeps readable words: quotation marks become apostrophes and § the word section', () => {
    const body = render(new errors.InvalidRequest('use "code" (RFC 7636 §4.2)'), 'oauth').body;
    expect(body).toEqual({
      error: 'invalid_request',
      error_description: "use 'code' (RFC 7636 section 4.2)",
    });
  });

  it('leaves the legacy envelope msg as it was', () => {
    const body = render(new errors.InvalidGrant('the code "x" is invalid'), 'legacy').body;
    expect(body).toEqual({ code: 2, msg: 'invalid_grant: the code "x" is invalid', data: {} });
  });
});

describeOnDatabases(
  'error_description on the wire',
  { transport: 'inject', client: true },
  ({ server, client }) => {
    it('redirects the authorization errors with RFC 6749 characters only', async () => {
      const { browser } = await signedInUser(server);
      const requests: Record<string, string | undefined>[] = [
        // OIDC Core §3.1.2.1: response_type is required with openid (the message once said: use "code").
        { scope: 'openid', response_type: undefined },
        { response_type: 'token "é"' },
        { prompt: 'naïve "x"' },
        { code_challenge: 'short' },
        { code_challenge: 'A'.repeat(43), code_challenge_method: 'S512' },
      ];
      for (const extra of requests) {
        const url = await authorizeRedirect(browser, {
          client_id: client.clientId,
          redirect_uri: REDIRECT_URI,
          ...extra,
        });
        expect(url.searchParams.get('error'), JSON.stringify(extra)).toBeTruthy();
        expect(url.searchParams.get('error_description'), JSON.stringify(extra)).toMatch(
          RFC_6749_DESCRIPTION,
        );
      }
    });

    it('answers the token endpoint errors with RFC 6749 characters only', async () => {
      const auth = basic(client.clientId, client.clientSecret);
      const forms: Record<string, string>[] = [
        { grant_type: 'password "é" \\' },
        { grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT_URI, code_verifier: 'short' },
        { grant_type: 'refresh_token', refresh_token: 'x', scope: 'openid "é"' },
      ];
      for (const form of forms) {
        const response = await postForm(server, '/v1/oauth2/token', form, auth);
        expect(response.status, JSON.stringify(form)).toBe(400);
        const body = await json<{ error: string; error_description: string }>(response);
        expect(body.error_description, JSON.stringify(form)).toMatch(RFC_6749_DESCRIPTION);
      }
    });

    it('answers a malformed Bearer header at userinfo with RFC 6749 characters only', async () => {
      const response = await server.fetch(`/v1/oauth2/userinfo`, {
        headers: { authorization: 'Token "x"' },
      });
      expect(response.status).toBe(401);
      const body = await json<{ error_description?: string }>(response);
      expect(body.error_description ?? '').toMatch(RFC_6749_DESCRIPTION);
    });
  },
);
