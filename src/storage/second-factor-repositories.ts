/** The repositories of second factors and of the sign-ins that await one (docs/interface.md#second-factor). */
import type {
  PasskeyRecord,
  PendingSignInRecord,
  TotpCredentialRecord,
  WebAuthnChallengeRecord,
  WebAuthnPurpose,
} from './records.js';

export interface SecondFactorRepository {
  findTotp(uin: number): Promise<TotpCredentialRecord | undefined>;
  /** Every stored TOTP secret, sealed (`campus-sso check` opens each). */
  listTotpSecrets(): Promise<{ uin: number; sealedSecret: string }[]>;
  /** Stores a new unconfirmed secret over any unconfirmed one; answers false when a confirmed one exists. */
  putUnconfirmedTotp(credential: TotpCredentialRecord): Promise<boolean>;
  /**
   * Atomically accepts time step `step` for the user's TOTP credential (confirming it when `confirm`), only if
   * no later or equal step was accepted before; answers false when it was (a replay) or there is none.
   */
  acceptTotpStep(uin: number, step: number, confirm: { now: number } | undefined): Promise<boolean>;
  deleteTotp(uin: number): Promise<boolean>;
  listPasskeys(uin: number): Promise<PasskeyRecord[]>;
  /** The second factors each of these users has enrolled (a confirmed TOTP, any passkey), for the admin list. */
  enrolledKinds(uins: readonly number[]): Promise<Map<number, ('totp' | 'passkey')[]>>;
  findPasskey(credentialId: string): Promise<PasskeyRecord | undefined>;
  /** Answers false when the credential id is registered already. */
  insertPasskey(passkey: PasskeyRecord): Promise<boolean>;
  /** Records a use: the authenticator's new signature counter and the time. */
  touchPasskey(id: string, counter: number, now: number): Promise<void>;
  deletePasskey(uin: number, id: string): Promise<boolean>;
  /** Replaces every recovery code of the user by these (SHA-256 hex) in one transaction. */
  replaceRecoveryCodes(uin: number, codeHashes: readonly string[], now: number): Promise<void>;
  /**
   * Atomically uses an unused recovery code stored under any of `codeHashes` (its current and legacy stored
   * forms); answers false when it is unknown or used.
   */
  useRecoveryCode(uin: number, codeHashes: readonly string[], now: number): Promise<boolean>;
  countUnusedRecoveryCodes(uin: number): Promise<number>;
  /** Removes every second factor of the user (TOTP, passkeys, recovery codes). */
  deleteAll(uin: number): Promise<void>;
  /** When the user last signed in with the password and a second factor (epoch ms), if ever. */
  findSecondFactorSignIn(uin: number): Promise<number | undefined>;
  recordSecondFactorSignIn(uin: number, at: number): Promise<void>;
  /**
   * Removes the passkeys and the TOTP app added after `after` (epoch ms; -1 for all), in one transaction;
   * answers what went.
   */
  deleteFactorsAddedAfter(uin: number, after: number): Promise<{ totp: boolean; passkeys: string[] }>;
}

export interface WebAuthnChallengeRepository {
  insert(challenge: WebAuthnChallengeRecord): Promise<void>;
  /** Deletes and answers the challenge (single use), whether or not it has expired. */
  take(challengeHash: string): Promise<WebAuthnChallengeRecord | undefined>;
  /** How many challenges for `purpose` are stored and unexpired at `now`. */
  countLive(purpose: WebAuthnPurpose, now: number): Promise<number>;
  purgeExpired(now: number): Promise<number>;
}

export interface PendingSignInRepository {
  insert(pending: PendingSignInRecord): Promise<void>;
  findActive(idHash: string, now: number): Promise<PendingSignInRecord | undefined>;
  /** Counts one wrong answer; answers the failures so far, or undefined when the sign-in is gone. */
  fail(idHash: string): Promise<number | undefined>;
  /** Ends it; answers false when it had ended already (so only one request completes it). */
  delete(idHash: string): Promise<boolean>;
  purgeExpired(now: number): Promise<number>;
}
