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
