import { MAX_STATE_LENGTH } from '../../shared/authorization.js';
import { InvalidRequest } from '../errors.js';
import type { AuthorizationParams } from './request.js';

/**
 * RFC 6749 §4.1.1: state is opaque to the server and echoed on the redirect; its length is bounded
 * (docs/interface.md#authorization-page) so that no request stores or sends back an unbounded value.
 */
export function checkState(params: AuthorizationParams): void {
  if (params.state !== undefined && params.state.length > MAX_STATE_LENGTH) {
    throw new InvalidRequest(`state must be at most ${MAX_STATE_LENGTH} characters`);
  }
}
