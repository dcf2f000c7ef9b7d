/**
 * RFC 8628 §6.1 user codes, the one rule both sides share: the device endpoint issues them (oauth/device), the
 * person approving a device types one (device-approvals.ts). 8 letters of an alphabet without vowels (no
 * words, no 0/O or 1/I mix-ups), shown as `WDJB-MJHT`; typed in any case, with or without dashes and spaces
 * (docs/interface.md#device-authorization-grant).
 */
import { randomInt } from 'node:crypto';
import { sha256Hex } from './crypto.js';

/** RFC 8628 §6.1: "BCDFGHJKLMNPQRSTVWXZ", 20^8 ≈ 2^34.6 codes. */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;

/** A new user code, 8 letters without the dash. */
export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** `WDJBMJHT` written `WDJB-MJHT` (RFC 8628 §6.1: a separator helps reading). */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * RFC 8628 §6.1: the code as typed, upper-cased, without dashes or whitespace; undefined when that is not
 * 8 letters of the alphabet (so it cannot be a code, and is refused as a wrong one).
 */
export function normalizedUserCode(typed: string): string | undefined {
  const code = typed.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== USER_CODE_LENGTH) return undefined;
  for (const letter of code) if (!USER_CODE_ALPHABET.includes(letter)) return undefined;
  return code;
}

/** The key a user code is stored under: its SHA-256 (it lives minutes, and wrong guesses are throttled). */
export function userCodeKey(normalized: string): string {
  return sha256Hex(`device-user-code:${normalized}`);
}
