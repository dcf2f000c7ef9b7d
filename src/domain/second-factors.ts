/**
 * What second factors a user has, and the rules around them (docs/interface.md#second-factor): recovery codes
 * come with the first factor and go with the last; groups in MFA_REQUIRED_GROUPS must have one before any
 * admin call works.
 */
import type { Clock } from '../clock.js';
import type { Repositories, Store, UserRecord } from '../storage/store.js';
import { legacyRecoveryCodeHash, newRecoveryCodes, recoveryCodeHash } from './recovery-codes.js';

import type { SecondFactorKind } from '../shared/views.js';

export type { SecondFactorKind };

/** What a password reset removed (docs/security.md#second-factors). */
export interface RemovedFactors {
  readonly totp: boolean;
  readonly passkeys: readonly string[];
}

/**
 * A password reset (by an admin or with a reset code) follows a compromise: the passkeys and authenticator
 * app added since the user last signed in with the password and a second factor go, since whoever held a
 * stolen session could have added them (docs/security.md#second-factors). Without any such sign-in, every
 * factor goes. With no factor left, the recovery codes are void.
 */
export async function removeFactorsAddedSinceLastSignIn(
  store: Pick<Repositories, 'secondFactors'>,
  uin: number,
): Promise<RemovedFactors> {
  const since = (await store.secondFactors.findSecondFactorSignIn(uin)) ?? -1;
  const removed = await store.secondFactors.deleteFactorsAddedAfter(uin, since);
  if (removed.totp || removed.passkeys.length > 0) {
    const [totp, passkeys] = await Promise.all([
      store.secondFactors.findTotp(uin),
      store.secondFactors.listPasskeys(uin),
    ]);
    if (totp?.confirmedAt == null && passkeys.length === 0) {
      await store.secondFactors.replaceRecoveryCodes(uin, [], 0);
    }
  }
  return removed;
}

export class SecondFactorService {
  /**
   * `recoveryCodeKey`: the HMAC key of the recovery codes, derived from the key-encryption key on first use
   * (src/domain/recovery-codes.ts).
   */
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly requiredGroups: readonly string[],
    private readonly recoveryCodeKey: () => Promise<Buffer>,
  ) {}

  /** The factors the user can sign in with (empty: a password suffices). */
  async factorsOf(uin: number): Promise<SecondFactorKind[]> {
    const [totp, passkeys, recoveryCodes] = await Promise.all([
      this.store.secondFactors.findTotp(uin),
      this.store.secondFactors.listPasskeys(uin),
      this.store.secondFactors.countUnusedRecoveryCodes(uin),
    ]);
    const factors: SecondFactorKind[] = [];
    if (passkeys.length > 0) factors.push('passkey');
    if (totp?.confirmedAt != null) factors.push('totp');
    // Recovery codes are a way out, never a factor of their own.
    if (factors.length > 0 && recoveryCodes > 0) factors.push('recovery_code');
    return factors;
  }

  /** How many of the user's recovery codes are still unused. */
  unusedRecoveryCodes(uin: number): Promise<number> {
    return this.store.secondFactors.countUnusedRecoveryCodes(uin);
  }

  /** Whether the user has enrolled a TOTP app or a passkey. */
  async hasSecondFactor(uin: number): Promise<boolean> {
    return (await this.factorsOf(uin)).length > 0;
  }

  /** Whether the user's group needs a second factor for admin calls (MFA_REQUIRED_GROUPS). */
  isRequiredFor(user: Pick<UserRecord, 'userGroup'>): boolean {
    return this.requiredGroups.includes(user.userGroup);
  }

  /** A fresh set of recovery codes, replacing any earlier set; the plaintext is answered once, never stored. */
  async regenerateRecoveryCodes(uin: number): Promise<string[]> {
    const codes = newRecoveryCodes();
    const key = await this.recoveryCodeKey();
    const hashes = codes.map((code) => recoveryCodeHash(key, code));
    await this.store.secondFactors.replaceRecoveryCodes(uin, hashes, this.clock.now());
    return codes;
  }

  /** Called after a factor was enrolled: the first factor comes with recovery codes (else undefined). */
  async afterEnrolment(uin: number, hadFactorBefore: boolean): Promise<string[] | undefined> {
    return hadFactorBefore ? undefined : this.regenerateRecoveryCodes(uin);
  }

  /** Called after a factor was removed: without any factor left, recovery codes are void. */
  async afterRemoval(uin: number): Promise<void> {
    if (!(await this.hasSecondFactor(uin))) await this.store.secondFactors.replaceRecoveryCodes(uin, [], 0);
  }

  /** Uses a recovery code (single use); false when it is wrong or used. */
  async useRecoveryCode(uin: number, code: string): Promise<boolean> {
    if (code.length > 64) return false;
    const hashes = [recoveryCodeHash(await this.recoveryCodeKey(), code), legacyRecoveryCodeHash(code)];
    return this.store.secondFactors.useRecoveryCode(uin, hashes, this.clock.now());
  }

  /**
   * The user signed in with the password and a second factor: the factors they have now are theirs
   * (`removeFactorsAddedSinceLastSignIn`).
   */
  async recordSecondFactorSignIn(uin: number): Promise<void> {
    await this.store.secondFactors.recordSecondFactorSignIn(uin, this.clock.now());
  }

  /** An admin removes every factor of a user (lost phone and codes). */
  async removeAll(uin: number): Promise<void> {
    await this.store.secondFactors.deleteAll(uin);
  }
}
