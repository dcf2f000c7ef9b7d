import { InvalidRequest } from '../errors.js';
import { present } from '../parameters.js';
import type { AuthorizationParams, ResponseMode } from './request.js';

/**
 * OAuth 2.0 Multiple Response Type Encoding Practices §2.1 `response_mode`, and OAuth 2.0 Form Post Response
 * Mode §2: `query` (the default of `response_type=code`) and `form_post`. Fragment encoding is not offered:
 * the code flow has no need of it, and the metadata does not list it.
 */
const RESPONSE_MODES: ReadonlySet<string> = new Set<ResponseMode>(['query', 'form_post']);

/**
 * How the response, an error included, is delivered: `form_post` when the client asked for it, else the query.
 * Read as soon as the redirect URI is verified, before any other check can fail, so that a client that asked
 * for form_post hears about every error by form_post too. An unknown mode falls back to the query, where
 * {@link checkResponseMode} reports it.
 */
export function deliveryResponseMode(params: AuthorizationParams): ResponseMode {
  return present(params.response_mode) === 'form_post' ? 'form_post' : 'query';
}

/** Multiple Response Type Encoding Practices §2.1: a mode this server does not offer is invalid_request. */
export function checkResponseMode(params: AuthorizationParams): void {
  const mode = present(params.response_mode);
  if (mode !== undefined && !RESPONSE_MODES.has(mode)) {
    throw new InvalidRequest(`response_mode '${mode}' is not supported; use query or form_post`);
  }
}
