/**
 * Authentication Method Reference values (RFC 8176 §2) that campus-sso records for a sign-in and puts in the
 * id_token's `amr` (docs/interface.md#second-factor).
 */
import type { PasskeyRecord } from '../storage/store.js';

export const AMR = {
  /** RFC 8176 `pwd`: password-based authentication. */
  password: 'pwd',
  /** RFC 8176 `otp`: a one-time password — a TOTP code (RFC 6238), or a single-use recovery code. */
  oneTimePassword: 'otp',
  /** RFC 8176 `hwk`: proof of possession of a hardware-secured key — a passkey bound to one device. */
  hardwareKey: 'hwk',
  /** RFC 8176 `swk`: proof of possession of a software-secured key — a passkey synced between devices. */
  softwareKey: 'swk',
  /** RFC 8176 `mfa`: multiple-factor authentication. */
  multiFactor: 'mfa',
} as const;

/**
 * A passkey's method: a single-device credential stays in its authenticator's hardware (`hwk`); a synced
 * (backup-eligible, "multi-device") one is copied between devices by software (`swk`).
 */
export function passkeyMethod(passkey: Pick<PasskeyRecord, 'deviceType'>): string {
  return passkey.deviceType === 'multiDevice' ? AMR.softwareKey : AMR.hardwareKey;
}

/** The password and one more factor: both methods, and `mfa`. */
export function withSecondFactor(method: string): readonly string[] {
  return [AMR.password, method, AMR.multiFactor];
}
