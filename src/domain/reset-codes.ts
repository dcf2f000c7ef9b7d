/**
 * One-time password reset codes for people without email (docs/interface.md#people-groups-and-audit): an admin
 * issues one, the person types it on `#/reset` with a new password. 12 characters of an alphabet without
 * look-alikes (no 0/O, 1/I/L), shown in groups of four: 59 bits, single use, 24 hours unless the admin chose
 * 1 to 14 days (sign-in cards for a class rollout), stored only as a SHA-256 digest. Guessing is throttled like
 * a sign-in, so 59 bits is ample.
 */
import { randomInt } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Repositories, Store } from '../storage/store.js';
import { sha256Hex } from './crypto.js';

const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 12;
export const RESET_CODE_TTL_MS = 24 * 3600 * 1000;
/** The lifetimes an admin may choose, in days (docs/interface.md#people-groups-and-audit). */
export const RESET_CODE_MIN_DAYS = 1;
export const RESET_CODE_MAX_DAYS = 14;

/** True for a whole number of days an admin may give a code. */
export function isResetCodeLifetime(days: number): boolean {
  return Number.isInteger(days) && days >= RESET_CODE_MIN_DAYS && days <= RESET_CODE_MAX_DAYS;
}

/** A fresh code, drawn without modulo bias, as `ABCD-EFGH-JKMN`. */
export function newResetCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code.replace(/(.{4})(?=.)/g, '$1-');
}

/** What a person typed, as it was issued: case, spaces and dashes do not matter. */
export function normalizeResetCode(typed: string): string {
  return typed.toUpperCase().replace(/[\s-]/g, '');
}

export class ResetCodeService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Issues a code for the user, replacing any earlier one; the code itself is answered this once. `days`:
   * its lifetime, 1 to 14 (checked here, whichever caller asks); without it, 24 hours.
   */
  async issue(uin: number, days?: number): Promise<{ code: string; expiresAt: number }> {
    if (days !== undefined && !isResetCodeLifetime(days)) {
      throw new RangeError(`a reset code lives ${RESET_CODE_MIN_DAYS} to ${RESET_CODE_MAX_DAYS} days`);
    }
    const code = newResetCode();
    const now = this.clock.now();
    const expiresAt = now + (days === undefined ? RESET_CODE_TTL_MS : days * 24 * 3600 * 1000);
    await this.store.resetCodes.put({
      uin,
      codeHash: sha256Hex(normalizeResetCode(code)),
      createdAt: now,
      expiresAt,
    });
    return { code, expiresAt };
  }

  /**
   * Uses up the user's code if `typed` is it and it has not expired. The comparison is the database's match
   * of SHA-256 digests: timing can reveal nothing about the code itself. `tx`: the transaction that sets the
   * new password (UserService.resetPassword), so that the code is used up only with it.
   */
  redeem(uin: number, typed: string, tx: Pick<Repositories, 'resetCodes'> = this.store): Promise<boolean> {
    return tx.resetCodes.take(uin, sha256Hex(normalizeResetCode(typed)), this.clock.now());
  }
}
