/** The records of second factors and of the sign-ins that await one (docs/interface.md#second-factor). */

/** A TOTP credential (RFC 6238); unconfirmed until the user typed a first code. */
export interface TotpCredentialRecord {
  readonly uin: number;
  /** The base32 secret, sealed with the key-encryption key (src/domain/secret-box.ts). */
  readonly sealedSecret: string;
  readonly confirmedAt: number | null;
  /** The last time step accepted (RFC 6238 §5.2: no code twice). */
  readonly lastUsedStep: number | null;
  readonly createdAt: number;
}

/** A WebAuthn credential (passkey) registered by a user. */
export interface PasskeyRecord {
  readonly id: string;
  readonly uin: number;
  /** base64url */
  readonly credentialId: string;
  /** COSE public key, base64url */
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
  /** WebAuthn backup eligibility: `multiDevice` passkeys are synced between devices. */
  readonly deviceType: 'singleDevice' | 'multiDevice';
  readonly backedUp: boolean;
  readonly name: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
}

export type WebAuthnPurpose = 'register' | 'second-factor' | 'passwordless';

/** A WebAuthn challenge, stored (as its SHA-256) so any instance can finish a ceremony another began. */
export interface WebAuthnChallengeRecord {
  readonly challengeHash: string;
  readonly purpose: WebAuthnPurpose;
  readonly uin: number | null;
  readonly expiresAt: number;
}

/** A sign-in whose password was right and whose second factor is still awaited. */
export interface PendingSignInRecord {
  readonly idHash: string;
  readonly uin: number;
  readonly failures: number;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** "This is a shared computer" was ticked: the session it completes is a shared-computer one. */
  readonly shared: boolean;
}
