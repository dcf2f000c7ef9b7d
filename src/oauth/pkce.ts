/**
 * PKCE (RFC 7636): the shapes of challenges and verifiers, and the check that a verifier answers a challenge.
 */
import { constantTimeEqual, sha256 } from '../domain/crypto.js';
import type { CodeChallengeMethod } from '../storage/store.js';

/** RFC 7636 §4.1 / §4.2: 43 to 128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~". */
export const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

export const CODE_CHALLENGE_METHODS: readonly CodeChallengeMethod[] = ['S256', 'plain'];

export function isCodeChallengeMethod(value: string): value is CodeChallengeMethod {
  return (CODE_CHALLENGE_METHODS as readonly string[]).includes(value);
}

/** RFC 7636 §4.6: does `verifier` answer `challenge`? Compared in constant time. */
export function verifierMatches(verifier: string, challenge: string, method: CodeChallengeMethod): boolean {
  // RFC 7636 §4.6: S256 compares BASE64URL-ENCODE(SHA256(ASCII(code_verifier))) with the challenge.
  const computed = method === 'S256' ? sha256(verifier).toString('base64url') : verifier;
  return constantTimeEqual(computed, challenge);
}

/**
 * RFC 7636 §4.6 and RFC 9700 §4.8.2, the one rule for a code's verifier: the code's challenge needs a verifier
 * of the right shape that answers it, and a code issued without one takes none. Answers why `verifier` does
 * not fit (the words of the invalid_grant), or undefined when it does.
 */
export function verifierProblem(
  challenge: string | null,
  method: CodeChallengeMethod | null,
  verifier: string | undefined,
): string | undefined {
  if (challenge === null || method === null) {
    // RFC 9700 §4.8.2: a verifier for a code issued without a challenge is a PKCE downgrade attempt.
    return verifier === undefined
      ? undefined
      : 'code_verifier was sent, but the authorization request carried no code_challenge';
  }
  // RFC 7636 §4.6: a code issued with a challenge needs the verifier.
  if (verifier === undefined)
    return 'code_verifier is required: the authorization request carried a code_challenge';
  // RFC 7636 §4.1: code-verifier = 43*128unreserved.
  if (!PKCE_VALUE.test(verifier)) {
    return 'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 section 4.1)';
  }
  // RFC 7636 §4.6: "If the values are not equal, an error response indicating invalid_grant MUST be returned."
  if (!verifierMatches(verifier, challenge, method)) return 'code_verifier does not match the code_challenge';
  return undefined;
}
