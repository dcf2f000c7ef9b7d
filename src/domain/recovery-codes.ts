/**
 * Recovery codes (docs/interface.md#second-factor): 10 single-use codes, shown once, the way back in when the
 * phone or security key is lost. Each is 10 random base32 characters (50 bits), so a SHA-256 of it is as
 * good a stored form as a slow hash: nobody can enumerate 2^50 guesses against the sign-in throttle.
 */
import { randomInt } from 'node:crypto';
import { sha256Hex } from './crypto.js';

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const LENGTH = 10;

/** One code as shown: `ABCDE-FGHJK`. */
function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
}

/** What is stored and compared: the code without separators or case, hashed. */
export function recoveryCodeHash(code: string): string {
  return sha256Hex(code.toUpperCase().replace(/[^A-Z0-9]/g, ''));
}
