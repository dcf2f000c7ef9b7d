/** The typed errors and the one place that renders them (src/oauth/errors.ts, src/http/responses.ts). */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/api-error.js';
import { render } from '../../src/http/responses.js';
import {
  AccessDenied,
  InvalidClient,
  InvalidClientOrRedirect,
  InvalidGrant,
  InvalidRequest,
  InvalidScope,
  InvalidToken,
  UnauthorizedClient,
  UnsupportedGrantType,
  UnsupportedResponseType,
} from '../../src/oauth/errors.js';
import { EnvelopeCode } from '../../src/shared/envelope.js';

describe('OAuthError', () => {
  it('may be sent to the redirect URI, except an unknown client or redirect URI (RFC 6749 §4.1.2.1)', () => {
    for (const error of [
      new InvalidRequest('x'),
      new InvalidClient('x'),
      new InvalidGrant('x'),
      new UnauthorizedClient('x'),
      new UnsupportedGrantType('x'),
      new InvalidScope('x'),
      new AccessDenied('x'),
      new UnsupportedResponseType('x'),
      new InvalidToken('x'),
    ]) {
      expect(error.allowRedirect, error.name).toBe(true);
    }
    expect(new InvalidClientOrRedirect('x', 'unknown_client').allowRedirect).toBe(false);
  });

  it('carries the envelope code the legacy endpoints answer', () => {
    expect(new InvalidRequest('x').envelopeCode).toBe(EnvelopeCode.InvalidRequest);
    expect(new InvalidGrant('x').envelopeCode).toBe(EnvelopeCode.InvalidClientOrGrant);
    expect(new InvalidClient('x').envelopeCode).toBe(EnvelopeCode.InvalidClientOrGrant);
    expect(new InvalidToken('x').envelopeCode).toBe(EnvelopeCode.NotSignedIn);
    expect(new InvalidClientOrRedirect('x', 'unknown_client').envelopeCode).toBe(
      EnvelopeCode.InvalidClientOrRedirect,
    );
  });
});

describe('render', () => {
  it('shows an unknown client or redirect URI to the page as code 3 with the description and the reason', () => {
    expect(
      render(new InvalidClientOrRedirect('unknown or disabled client', 'unknown_client'), 'envelope'),
    ).toEqual({
      status: 400,
      body: { code: 3, msg: 'unknown or disabled client', data: { reason: 'unknown_client' } },
      headers: {},
    });
  });

  it('names the app in data.name when the client exists', () => {
    const error = new InvalidClientOrRedirect('unknown or disabled client', 'disabled_client', 'Library');
    expect(render(error, 'envelope').body).toEqual({
      code: 3,
      msg: 'unknown or disabled client',
      data: { reason: 'disabled_client', name: 'Library' },
    });
  });

  it('puts the RFC error code in front of the message on the legacy endpoints, never cached', () => {
    expect(render(new InvalidGrant('the code has expired'), 'legacy')).toEqual({
      status: 400,
      body: { code: 2, msg: 'invalid_grant: the code has expired', data: {} },
      headers: { 'cache-control': 'no-store', pragma: 'no-cache' },
    });
  });

  it('renders an ApiError with its envelope code and headers', () => {
    const error = new ApiError(429, EnvelopeCode.Throttled, 'slow down', { 'retry-after': '5' });
    expect(render(error, 'envelope')).toEqual({
      status: 429,
      body: { code: 7, msg: 'slow down', data: {} },
      headers: { 'retry-after': '5' },
    });
  });
});
