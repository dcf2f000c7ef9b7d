/**
 * Input refused before any route schema or handler sees it (malformed bytes, a forbidden character). Carries
 * a 400 status, so `responses.ts` renders it as every route's own "invalid request": RFC 6749
 * `invalid_request` on the OAuth endpoints, envelope code 1 elsewhere.
 */
export class BadInputError extends Error {
  readonly statusCode = 400;
  readonly code = 'CAMPUS_SSO_BAD_INPUT';
}
