/**
 * Passkeys (WebAuthn Level 2) by @simplewebauthn/server: registration on the account page, use as a second
 * factor, and passwordless sign-in with discoverable credentials. The relying party id is the host of
 * BASE_URL and the expected origin its origin (WebAuthn §5.1.3, §7.1). Challenges are stored (as SHA-256)
 * in the database, single use and valid 5 minutes, so any instance can finish a ceremony another began.
 */
import type * as SimpleWebAuthn from '@simplewebauthn/server';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Clock } from '../clock.js';
import type { PasskeyRecord, Store, WebAuthnPurpose } from '../storage/store.js';
import { randomToken, sha256Hex } from './crypto.js';

let library: Promise<typeof SimpleWebAuthn> | undefined;

/**
 * The WebAuthn library, loaded on first use rather than at start-up: it and its CBOR/ASN.1 parsers hold about
 * 20 MB of memory that a server whose users register no passkey never needs.
 */
function webauthn(): Promise<typeof SimpleWebAuthn> {
  return (library ??= import('@simplewebauthn/server'));
}

const CHALLENGE_TTL_MS = 5 * 60_000;

/**
 * `POST /v1/account/passkey-login/options` needs no sign-in and stores a challenge (docs/security.md): at most
 * this many calls per client address a minute (a school behind one NAT address included) …
 */
export const PASSWORDLESS_OPTIONS_PER_MINUTE = 120;
/** … and at most this many unexpired passwordless challenges stored at once. */
export const MAX_PASSWORDLESS_CHALLENGES = 10_000;
const MINUTE_MS = 60_000;

/**
 * The public-key algorithms offered and accepted at registration (COSE ids, IANA "COSE Algorithms"): EdDSA
 * (-8), ES256 (-7) and RS256 (-257), the same on every Node version. Left to itself the library puts
 * ML-DSA-44 first where WebCrypto has it (Node 24): authenticators that take it then sign with 2.4 KB
 * signatures, and a passkey made on a Node 24 instance could not be used on one running Node 22.
 */
const OFFERED_ALGORITHMS = [-8, -7, -257];

export type { AuthenticationResponseJSON, RegistrationResponseJSON };

export class PasskeyError extends Error {
  override readonly name = 'PasskeyError';
}

/** What a verified assertion proves: whose passkey, and whether the user was verified (PIN, biometrics). */
export interface PasskeyAssertion {
  readonly passkey: PasskeyRecord;
  readonly userVerified: boolean;
}

/** The challenge inside a response's clientDataJSON (WebAuthn §5.8.1), read before anything is verified. */
function challengeOf(clientDataJSON: unknown): string | undefined {
  if (typeof clientDataJSON !== 'string' || clientDataJSON.length > 4096) return undefined;
  try {
    const clientData = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as unknown;
    const challenge = (clientData as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === 'string' && challenge.length <= 256 ? challenge : undefined;
  } catch {
    return undefined;
  }
}

/** Runs a WebAuthn verification: a failure, thrown or answered, is a PasskeyError. */
async function verifiedBy<T extends { verified: boolean }>(
  verify: () => Promise<T>,
): Promise<T & { verified: true }> {
  let result: T;
  try {
    result = await verify();
  } catch (error) {
    throw new PasskeyError(`the passkey could not be verified: ${(error as Error).message}`);
  }
  if (!result.verified) throw new PasskeyError('the passkey could not be verified');
  return result as T & { verified: true };
}

export class PasskeyService {
  private readonly rpId: string;
  private readonly origin: string;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    baseUrl: string,
  ) {
    const url = new URL(baseUrl);
    this.rpId = url.hostname;
    this.origin = url.origin;
  }

  /** The user's passkeys. */
  list(uin: number): Promise<PasskeyRecord[]> {
    return this.store.secondFactors.listPasskeys(uin);
  }

  /** Removes one of the user's passkeys; answers false when they have none with this id. */
  remove(uin: number, id: string): Promise<boolean> {
    return this.store.secondFactors.deletePasskey(uin, id);
  }

  /** Creation options for a new passkey of `uin`; its existing ones are excluded (no duplicates). */
  async registrationOptions(uin: number): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = await this.store.secondFactors.listPasskeys(uin);
    const options = await (
      await webauthn()
    ).generateRegistrationOptions({
      rpName: 'campus-sso',
      rpID: this.rpId,
      userName: String(uin),
      userDisplayName: String(uin),
      // The user handle: the uin, so a second passkey on the same authenticator replaces the first.
      userID: new TextEncoder().encode(String(uin)),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: [...p.transports] })),
      // Discoverable ("resident") credentials are what lets a passkey sign in without typing the uin.
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      supportedAlgorithmIDs: OFFERED_ALGORITHMS,
    });
    await this.remember(options.challenge, 'register', uin);
    return options;
  }

  /** Verifies the browser's registration response and stores the passkey under `name`. */
  async register(uin: number, name: string, response: RegistrationResponseJSON): Promise<PasskeyRecord> {
    const challenge = await this.takeChallenge(response.response?.clientDataJSON, 'register', uin);
    const verified = await verifiedBy(async () =>
      (await webauthn()).verifyRegistrationResponse({
        response,
        ...this.expected(challenge),
        requireUserVerification: false,
        supportedAlgorithmIDs: OFFERED_ALGORITHMS,
      }),
    );
    const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
    const passkey: PasskeyRecord = {
      id: randomToken(12),
      uin,
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
      deviceType: credentialDeviceType,
      backedUp: credentialBackedUp,
      name,
      createdAt: this.clock.now(),
      lastUsedAt: null,
    };
    if (!(await this.store.secondFactors.insertPasskey(passkey))) {
      throw new PasskeyError('this passkey is registered already');
    }
    return passkey;
  }

  /** Request options for a second factor: the user's own passkeys only. */
  async secondFactorOptions(uin: number): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const passkeys = await this.store.secondFactors.listPasskeys(uin);
    const options = await (
      await webauthn()
    ).generateAuthenticationOptions({
      rpID: this.rpId,
      allowCredentials: passkeys.map((p) => ({ id: p.credentialId, transports: [...p.transports] })),
      userVerification: 'preferred',
    });
    await this.remember(options.challenge, 'second-factor', uin);
    return options;
  }

  /**
   * Request options for a passwordless sign-in: no credential list (the authenticator offers its
   * discoverable ones), and user verification required, so the passkey alone is two factors.
   */
  async passwordlessOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await (
      await webauthn()
    ).generateAuthenticationOptions({ rpID: this.rpId, userVerification: 'required' });
    await this.remember(options.challenge, 'passwordless', null);
    return options;
  }

  /**
   * Seconds before `address` may ask for passwordless options again (0: now). Counts the call; refuses beyond
   * the per-address budget, and while the stored challenges are at their bound.
   */
  async passwordlessOptionsRetryAfter(address: string): Promise<number> {
    const now = this.clock.now();
    const calls = await this.store.throttles.hit(`passkey-options:ip:${address}`, now, now - MINUTE_MS);
    if (calls.failures > PASSWORDLESS_OPTIONS_PER_MINUTE) {
      return Math.max(1, Math.ceil((calls.windowStart + MINUTE_MS - now) / 1000));
    }
    const stored = await this.store.webAuthnChallenges.countLive('passwordless', now);
    return stored >= MAX_PASSWORDLESS_CHALLENGES ? Math.ceil(MINUTE_MS / 1000) : 0;
  }

  /**
   * Verifies an assertion for `purpose`. For a second factor the passkey must be `uin`'s; for a passwordless
   * sign-in it may be anyone's, and the user must have been verified.
   */
  async authenticate(
    purpose: 'second-factor' | 'passwordless',
    uin: number | null,
    response: AuthenticationResponseJSON,
  ): Promise<PasskeyAssertion> {
    const challenge = await this.takeChallenge(response.response?.clientDataJSON, purpose, uin);
    const passkey =
      typeof response.id === 'string' ? await this.store.secondFactors.findPasskey(response.id) : undefined;
    if (!passkey || (uin !== null && passkey.uin !== uin)) throw new PasskeyError('unknown passkey');
    const verified = await verifiedBy(async () =>
      (await webauthn()).verifyAuthenticationResponse({
        response,
        ...this.expected(challenge),
        credential: {
          id: passkey.credentialId,
          publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
          counter: passkey.counter,
          transports: [...passkey.transports],
        },
        requireUserVerification: purpose === 'passwordless',
      }),
    );
    await this.store.secondFactors.touchPasskey(
      passkey.id,
      verified.authenticationInfo.newCounter,
      this.clock.now(),
    );
    return { passkey, userVerified: verified.authenticationInfo.userVerified };
  }

  /** What a response must carry to be ours (WebAuthn §7.1, §7.2): the challenge, our origin and RP ID. */
  private expected(challenge: string) {
    return { expectedChallenge: challenge, expectedOrigin: this.origin, expectedRPID: this.rpId };
  }

  private async remember(challenge: string, purpose: WebAuthnPurpose, uin: number | null): Promise<void> {
    await this.store.webAuthnChallenges.insert({
      challengeHash: sha256Hex(challenge),
      purpose,
      uin,
      expiresAt: this.clock.now() + CHALLENGE_TTL_MS,
    });
  }

  /** Takes the response's challenge from the store: single use, unexpired, same purpose and user. */
  private async takeChallenge(
    clientDataJSON: unknown,
    purpose: WebAuthnPurpose,
    uin: number | null,
  ): Promise<string> {
    const challenge = challengeOf(clientDataJSON);
    if (challenge === undefined) throw new PasskeyError('the response carries no challenge');
    const stored = await this.store.webAuthnChallenges.take(sha256Hex(challenge));
    if (!stored || stored.expiresAt <= this.clock.now() || stored.purpose !== purpose || stored.uin !== uin) {
      throw new PasskeyError('the challenge is unknown, used or expired; start again');
    }
    return challenge;
  }
}
