import { InvalidRequest } from '../errors.js';
import { present } from '../parameters.js';
import { isCodeChallengeMethod, PKCE_VALUE } from '../pkce.js';
import type { AuthorizationParams, PkceChallenge } from './request.js';

/** PKCE on the authorization request (RFC 7636 §4.3, §4.4.1). */
export function checkPkce(params: AuthorizationParams): PkceChallenge | null {
  const challenge = present(params.code_challenge);
  const method = present(params.code_challenge_method);
  if (challenge === undefined) {
    // A method without a challenge is a malformed request (it would silently give no protection).
    if (method !== undefined)
      throw new InvalidRequest('code_challenge_method was sent without code_challenge');
    return null;
  }
  // RFC 7636 §4.2: code_challenge is 43 to 128 unreserved characters.
  if (!PKCE_VALUE.test(challenge)) {
    throw new InvalidRequest(
      'code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 section 4.2)',
    );
  }
  // RFC 7636 §4.3: "Defaults to plain if not present in the request."
  const codeChallengeMethod = method ?? 'plain';
  // RFC 7636 §4.4.1: an unsupported transformation is invalid_request.
  if (!isCodeChallengeMethod(codeChallengeMethod)) {
    throw new InvalidRequest('code_challenge_method must be S256 or plain (RFC 7636 section 4.3)');
  }
  return { codeChallenge: challenge, codeChallengeMethod };
}
