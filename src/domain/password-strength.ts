import { createRequire } from 'node:module';
import type * as ZxcvbnCore from '@zxcvbn-ts/core';
import type * as ZxcvbnCommon from '@zxcvbn-ts/language-common';

/**
 * Which passwords are too common to allow (docs/security.md): the 10,000 most common passwords of the
 * maintained zxcvbn-ts common list (ranked by frequency in leaked password sets), and anything its pattern
 * rules guess within 1,000 tries (zxcvbn score 0: repeats such as eight spaces, sequences, keyboard walks),
 * which that list leaves out because the patterns cover them. The browser's strength meter uses the same
 * library (web/src/lib/password-strength.ts).
 */
export const COMMON_PASSWORD_COUNT = 10_000;

interface Checker {
  readonly common: ReadonlySet<string>;
  readonly guesses: (password: string) => number;
}

let checker: Checker | undefined;

/**
 * Loaded on first use, not at start-up: the dictionary costs ~50 ms and ~10 MB, and only setting a password
 * needs it. `require` keeps the callers synchronous.
 */
function load(): Checker {
  const require = createRequire(import.meta.url);
  const core = require('@zxcvbn-ts/core') as typeof ZxcvbnCore;
  const common = require('@zxcvbn-ts/language-common') as typeof ZxcvbnCommon;
  const zxcvbn = new core.ZxcvbnFactory({
    dictionary: common.dictionary,
    graphs: common.adjacencyGraphs,
  });
  return {
    common: new Set(common.dictionary['passwords-common'].slice(0, COMMON_PASSWORD_COUNT)),
    guesses: (password) => zxcvbn.check(password).guesses,
  };
}

/**
 * Why `password` is too easy: `common` when it is among the most common passwords, `guessable` when the
 * pattern rules guess it within 1,000 tries; undefined when neither.
 */
export function commonPasswordKind(password: string): 'common' | 'guessable' | undefined {
  checker ??= load();
  if (checker.common.has(password.toLowerCase())) return 'common';
  return checker.guesses(password) < 1_000 ? 'guessable' : undefined;
}

/** True when `password` is among the most common passwords or as easy to guess. */
export function isCommonPassword(password: string): boolean {
  return commonPasswordKind(password) !== undefined;
}
