/**
 * Recovery codes (docs/interface.md#second-factor): 10 single-use codes, shown once, the way back in when the
 * phone or security key is lost. Each is 10 random base32 characters (50 bits): online guessing is stopped by
 * the sign-in throttle, and offline guessing by the stored form, an HMAC-SHA-256 keyed from the key-encryption
 * key (SECRET_KEY), which never enters the database: a copy of the database alone cannot test a single guess
 * (docs/security.md#second-factors). Codes stored by earlier versions as a bare SHA-256 keep working.
 */
import { createHmac, randomInt } from 'node:crypto';
import { sha256Hex } from './crypto.js';

/** The HKDF `info` of the recovery codes' HMAC key (src/domain/secret-box.ts). */
export const RECOVERY_CODES_KEY_INFO = 'recovery codes';
/** Marks the keyed stored form, so it is never mistaken for a bare digest. */
const HMAC_PREFIX = 'hmac:';

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

const normalized = (code: string): string => code.toUpperCase().replace(/[^A-Z0-9]/g, '');

/** What is stored and compared: the code without separators or case, HMAC-SHA-256 under `key`. */
export function recoveryCodeHash(key: Buffer, code: string): string {
  return HMAC_PREFIX + createHmac('sha256', key).update(normalized(code)).digest('hex');
}

/** The bare SHA-256 earlier versions stored; still accepted for codes issued before. */
export function legacyRecoveryCodeHash(code: string): string {
  return sha256Hex(normalized(code));
}
