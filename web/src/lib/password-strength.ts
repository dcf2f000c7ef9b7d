/**
 * The strength meter's estimate (loaded on demand by PasswordStrength.vue, so the sign-in page does not carry
 * the dictionary). The same library and rules as the server (src/domain/password-strength.ts): the 10,000
 * most common passwords of the zxcvbn-ts common list, or anything guessed within 1,000 tries, are refused.
 */
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

const COMMON = new Set(dictionary['passwords-common'].slice(0, 10_000));
const zxcvbn = new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs });

export interface Strength {
  /** 0 (guessed at once) to 4 (very hard to guess), zxcvbn's score. */
  readonly score: 0 | 1 | 2 | 3 | 4;
  /** The server will refuse it: too common, as easy to guess, or it contains the uin. */
  readonly refused: 'tooCommon' | 'guessable' | 'containsUin' | undefined;
}

export function passwordStrength(password: string, uin?: number): Strength {
  const result = zxcvbn.check(password, uin === undefined ? [] : [String(uin)]);
  const tooCommon = COMMON.has(password.toLowerCase());
  const guessable = !tooCommon && result.guesses < 1_000;
  const containsUin = uin !== undefined && password.includes(String(uin));
  return {
    score: tooCommon || guessable || containsUin ? 0 : result.score,
    refused: containsUin ? 'containsUin' : tooCommon ? 'tooCommon' : guessable ? 'guessable' : undefined,
  };
}
