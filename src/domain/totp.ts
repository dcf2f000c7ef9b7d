/**
 * TOTP second factor (RFC 6238 with its defaults: HMAC-SHA-1, 6 digits, 30-second steps), by otplib. The
 * secret is sealed at rest (secret-box.ts); a code is accepted once only, because the step it matched is
 * stored and no step at or before it is accepted again (RFC 6238 §5.2).
 */
import type * as Otplib from 'otplib';
import type { Clock } from '../clock.js';
import type { Store } from '../storage/store.js';
import type { SecretBox } from './secret-box.js';
import { isTotpCode } from '../shared/totp.js';

let library: Promise<typeof Otplib> | undefined;

/** otplib, loaded on first use rather than at start-up: most users never set up an authenticator app. */
function otplib(): Promise<typeof Otplib> {
  return (library ??= import('otplib'));
}

/** RFC 6238 §5.2: one step of clock drift either way ("at most one time step"). */
const DRIFT_SECONDS = 30;
/** RFC 4226 §4: at least 128 bits; 160 is what RFC 6238's reference and most apps use. */
const SECRET_BYTES = 20;

// The code's shape is shared with the routes and the page.
export { TOTP_CODE_PATTERN } from '../shared/totp.js';

export interface TotpSetup {
  /** Base32, shown as text for typing into an app. */
  readonly secret: string;
  /** Key URI Format `otpauth://totp/…`, shown as a QR code. */
  readonly otpauthUri: string;
}

/** The additional authenticated data of a user's sealed secret: it opens on that user's row only. */
const aad = (uin: number): string => `totp:${uin}`;

export class TotpService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly secretBox: () => Promise<SecretBox>,
    /** Shown by the authenticator app beside the code: the host of BASE_URL. */
    private readonly host: string,
  ) {}

  /** A new, unconfirmed secret; undefined when the user has a confirmed one (it must be removed first). */
  async setup(uin: number): Promise<TotpSetup | undefined> {
    const { generateSecret, generateURI } = await otplib();
    const secret = generateSecret({ length: SECRET_BYTES });
    const box = await this.secretBox();
    const stored = await this.store.secondFactors.putUnconfirmedTotp({
      uin,
      sealedSecret: box.seal(secret, aad(uin)),
      confirmedAt: null,
      lastUsedStep: null,
      createdAt: this.clock.now(),
    });
    if (!stored) return undefined;
    const otpauthUri = generateURI({ issuer: 'campus-sso', label: `${uin}@${this.host}`, secret });
    return { secret, otpauthUri };
  }

  /** Whether the user has a confirmed TOTP credential. */
  async isEnrolled(uin: number): Promise<boolean> {
    return (await this.store.secondFactors.findTotp(uin))?.confirmedAt != null;
  }

  /** Confirms the unconfirmed secret with a first code; false when the code is wrong or nothing awaits. */
  async confirm(uin: number, code: string): Promise<boolean> {
    const credential = await this.store.secondFactors.findTotp(uin);
    if (!credential || credential.confirmedAt !== null) return false;
    const step = await this.matchingStep(credential.sealedSecret, credential.lastUsedStep, uin, code);
    return (
      step !== undefined && this.store.secondFactors.acceptTotpStep(uin, step, { now: this.clock.now() })
    );
  }

  /** Checks a code against the confirmed secret; a code (its time step) is accepted once, never again. */
  async verify(uin: number, code: string): Promise<boolean> {
    const credential = await this.store.secondFactors.findTotp(uin);
    if (!credential || credential.confirmedAt === null) return false;
    const step = await this.matchingStep(credential.sealedSecret, credential.lastUsedStep, uin, code);
    return step !== undefined && this.store.secondFactors.acceptTotpStep(uin, step, undefined);
  }

  /** The users whose stored secret this key-encryption key cannot open (`campus-sso check`). */
  async unreadableSecrets(): Promise<number[]> {
    const box = await this.secretBox();
    const unreadable: number[] = [];
    for (const { uin, sealedSecret } of await this.store.secondFactors.listTotpSecrets()) {
      try {
        box.open(sealedSecret, aad(uin));
      } catch {
        unreadable.push(uin);
      }
    }
    return unreadable;
  }

  async remove(uin: number): Promise<boolean> {
    return this.store.secondFactors.deleteTotp(uin);
  }

  /** The time step the code belongs to, within one step of now and after the last one used. */
  private async matchingStep(
    sealedSecret: string,
    lastUsedStep: number | null,
    uin: number,
    code: string,
  ): Promise<number | undefined> {
    if (!isTotpCode(code)) return undefined;
    const secret = (await this.secretBox()).open(sealedSecret, aad(uin));
    const { verifySync } = await otplib();
    const result = verifySync({
      secret,
      token: code,
      epoch: Math.floor(this.clock.now() / 1000),
      epochTolerance: DRIFT_SECONDS,
      ...(lastUsedStep === null ? {} : { afterTimeStep: lastUsedStep }),
    });
    return result.valid && 'timeStep' in result ? result.timeStep : undefined;
  }
}
