/**
 * A sign-in whose password was right and whose second factor is still awaited (docs/interface.md#second-factor).
 * It lives in its own table, under the session cookie's name, so until it is completed nothing that needs a
 * session (`/v1/account/me`, authorization, the admin API) finds one. Five wrong answers end it.
 */
import type { Clock } from '../clock.js';
import type { PendingSignInRecord, Store } from '../storage/store.js';
import { randomToken, sha256Hex } from './crypto.js';

/** Long enough to find a phone or a security key. */
export const PENDING_SIGN_IN_TTL_SECONDS = 10 * 60;
/** Wrong second-factor answers that end the pending sign-in. */
export const MAX_SECOND_FACTOR_FAILURES = 5;

export class PendingSignInService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Starts one; answers the cookie value. `shared`: "This is a shared computer", for the session it
   * completes (docs/interface.md#sessions-and-sign-out).
   */
  async begin(uin: number, shared: boolean): Promise<string> {
    const id = randomToken(32);
    const now = this.clock.now();
    await this.store.pendingSignIns.insert({
      idHash: sha256Hex(id),
      uin,
      failures: 0,
      createdAt: now,
      expiresAt: now + PENDING_SIGN_IN_TTL_SECONDS * 1000,
      shared,
    });
    return id;
  }

  async find(id: string): Promise<PendingSignInRecord | undefined> {
    if (id.length === 0 || id.length > 128) return undefined;
    return this.store.pendingSignIns.findActive(sha256Hex(id), this.clock.now());
  }

  /** Counts a wrong answer; answers true when that was the last one allowed and the sign-in has ended. */
  async fail(pending: PendingSignInRecord): Promise<boolean> {
    const failures = await this.store.pendingSignIns.fail(pending.idHash);
    if (failures === undefined) return true;
    if (failures < MAX_SECOND_FACTOR_FAILURES) return false;
    await this.store.pendingSignIns.delete(pending.idHash);
    return true;
  }

  /** Ends it; answers false when another request ended it first. */
  async end(pending: Pick<PendingSignInRecord, 'idHash'>): Promise<boolean> {
    return this.store.pendingSignIns.delete(pending.idHash);
  }

  /** Ends the pending sign-in behind a cookie value, if any (sign-out, a new sign-in). */
  async endById(id: string): Promise<void> {
    if (id.length > 0 && id.length <= 128) await this.store.pendingSignIns.delete(sha256Hex(id));
  }
}
