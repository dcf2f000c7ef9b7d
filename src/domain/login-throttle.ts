import type { Clock } from '../clock.js';
import type { Store, ThrottleState } from '../storage/store.js';
import {
  ACCOUNT,
  type Attempt,
  ADDRESS,
  accountKey,
  addressKey,
  lockMs,
  secondsUntil,
  verdict,
} from './login-throttle-policy.js';

export { accountLocks, unlockAccount } from './account-locks.js';
export { type Attempt, lockWarning } from './login-throttle-policy.js';

/**
 * Sign-in throttling per account and per client address (docs/security.md), kept in the database so every
 * instance sees the same counters. An account locks at its fifth failure within an hour, for twice as long
 * after each further one (30 s, 1 min, 2 min … at most 15 min); an address gets a much larger budget, because a
 * whole school may sign in through one NAT address.
 *
 * Only attempts whose password is checked count. An attempt is counted BEFORE the check (so a burst of
 * simultaneous guesses cannot slip past the count) and refunded when it succeeds or is refused unchecked.
 * Within the budget, as many attempts as the budget allows may be checked at once. Once a lock has expired,
 * the next attempt IS checked — one at a time, so a burst after the lock still buys one guess: a check gate
 * (a second counter per key) lets the attempt that takes it through and refuses the others until it settles.
 *
 * An attempt that ends in a database error decided nothing, so it is never a failure: `interrupted` takes its
 * count back and releases its gate. The database is often still unavailable then, so what it could not write
 * waits in memory and is written before this instance counts its next attempt (docs/security.md).
 */
/** A check gate left taken by a crashed instance opens again after this long. */
const GATE_MS = 60_000;

/** Refusals that no standing lock explains (a burst's surplus, a busy check gate) are recorded once per this. */
const TRANSIENT_REFUSAL_MS = 30_000;

const NO_STATE: ThrottleState = { failures: 0, windowStart: 0, lockedUntil: 0 };

/** A write that takes back an interrupted attempt: a count refunded, or a check gate released. */
interface Undo {
  readonly refund?: string;
  readonly release?: string;
}

export class LoginThrottle {
  /** Attempts settled (or being settled) by their password check: an interruption no longer undoes them. */
  private readonly settled = new WeakSet<Attempt>();
  /** Undos of interrupted attempts that the database did not take yet. */
  private readonly undos = new Set<Undo>();
  private writing: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Counts an attempt; answers it with `retryAfter` > 0 when it must be refused without checking. */
  async begin(uin: number, address: string): Promise<Attempt> {
    // Interrupted attempts are taken back first, so they never count against this one.
    if (this.undos.size > 0) await this.writeUndos();
    const now = this.clock.now();
    const lock = await this.standingLock(uin, address, now);
    // Refused during a lock without counting: hammering a locked account does not lengthen its owner's wait.
    if (lock) return { ...refused(uin, address, secondsUntil(lock.until, now)), lock };
    const hits = await Promise.allSettled([
      this.store.throttles.hit(accountKey(uin), now, now - ACCOUNT.windowMs),
      this.store.throttles.hit(addressKey(address), now, now - ADDRESS.windowMs),
    ]);
    const [account, client] = await this.countedOrUndone(hits, [accountKey(uin), addressKey(address)]);
    const verdicts = [
      verdict(ACCOUNT, accountKey(uin), account, now),
      verdict(ADDRESS, addressKey(address), client, now),
    ];
    let wait = 0;
    const gates: string[] = [];
    for (const v of verdicts) {
      if (!v.check) wait = Math.max(wait, v.wait);
      else if (v.gate !== undefined && wait === 0) {
        let taken: boolean;
        try {
          taken = await this.takeGate(v.gate, now);
        } catch (error) {
          // The gate may have been taken before the connection broke: released with the counts.
          await this.undo([
            ...gates.map((gate) => ({ release: gate })),
            { release: v.gate },
            { refund: accountKey(uin) },
            { refund: addressKey(address) },
          ]);
          throw error;
        }
        if (taken) gates.push(v.gate);
        else wait = 1; // Another attempt is being checked; its answer decides the next lock.
      }
    }
    if (wait > 0) {
      // Refused unchecked, so not counted.
      await this.undo([
        ...gates.map((gate) => ({ release: gate })),
        { refund: accountKey(uin) },
        { refund: addressKey(address) },
      ]);
      return refused(uin, address, wait);
    }
    return { uin, address, retryAfter: 0, account, client, gates };
  }

  /** The password was right: the account starts afresh and the address gets its attempt back. */
  succeeded(attempt: Attempt): Promise<void> {
    return this.settle(attempt, 'delete');
  }

  /**
   * The password was right but a second factor is still awaited: the attempt is taken back, and the account's
   * earlier failures stay, so wrong second-factor codes keep counting across new password attempts. The check
   * gate opens, so the second factor's own attempt does not wait for the gate to lapse (docs/security.md).
   */
  passwordAccepted(attempt: Attempt): Promise<void> {
    return this.settle(attempt, 'refund');
  }

  /**
   * Settles an attempt whose password was right: the account's failures are deleted or the attempt refunded
   * (`account`), the address gets its attempt back, and the gates open.
   */
  private async settle(attempt: Attempt, account: 'delete' | 'refund'): Promise<void> {
    await Promise.all([
      this.store.throttles[account](accountKey(attempt.uin)),
      this.store.throttles.refund(addressKey(attempt.address)),
    ]);
    this.settled.add(attempt);
    await this.releaseGates(attempt);
  }

  /**
   * Whether a refused attempt is the first of its lock (docs/security.md): refusals are audited once per lock,
   * not once per request, so hammering a locked account neither floods the audit trail nor fills its owner's
   * recent sign-ins. Refusals without a standing lock are recorded once per 30 s per account.
   */
  async firstRefusal(attempt: Attempt): Promise<boolean> {
    const now = this.clock.now();
    const state = attempt.lock
      ? await this.store.throttles.hit(`${attempt.lock.key}:refused@${attempt.lock.until}`, now, now - DAY_MS)
      : await this.store.throttles.hit(`${accountKey(attempt.uin)}:refused`, now, now - TRANSIENT_REFUSAL_MS);
    return state.failures === 1;
  }

  /**
   * The password could not be checked (the school's directory did not answer): the attempt is taken back
   * whole, since only checked attempts count (docs/security.md).
   */
  async notChecked(attempt: Attempt): Promise<void> {
    await Promise.all([
      this.store.throttles.refund(accountKey(attempt.uin)),
      this.store.throttles.refund(addressKey(attempt.address)),
    ]);
    this.settled.add(attempt);
    await this.releaseGates(attempt);
  }

  /** The password was wrong: the counted attempt stays, and locks when it reached the limit. */
  async failed(attempt: Attempt): Promise<void> {
    // A wrong password stays a failure even when writing its lock is interrupted.
    this.settled.add(attempt);
    // The lock is in place before the gate opens, so no other attempt slips in between.
    await this.applyLocks(attempt.uin, attempt.address, attempt.account, attempt.client, this.clock.now());
    await this.releaseGates(attempt);
  }

  /**
   * The attempt ended in a database error before its check settled it: nothing was decided, so its count is
   * taken back and its check gate released, now or, while the database is unavailable, before the next count.
   */
  async interrupted(attempt: Attempt): Promise<void> {
    if (attempt.retryAfter > 0) return; // refused and never counted
    const undos: Undo[] = attempt.gates.map((gate) => ({ release: gate }));
    if (!this.settled.has(attempt)) {
      this.settled.add(attempt);
      undos.push({ refund: accountKey(attempt.uin) }, { refund: addressKey(attempt.address) });
    }
    await this.undo(undos);
  }

  /** Seconds until a sign-in may be tried again (0: now), without counting an attempt. */
  async retryAfter(uin: number, address: string): Promise<number> {
    const now = this.clock.now();
    const lock = await this.standingLock(uin, address, now);
    return lock ? secondsUntil(lock.until, now) : 0;
  }

  /** Takes a check gate: the attempt whose count on it is 1 holds it until it settles. */
  private async takeGate(gate: string, now: number): Promise<boolean> {
    const state = await this.store.throttles.hit(gate, now, now - GATE_MS);
    return state.failures === 1;
  }

  /**
   * The states of the two counting hits; when one of them failed, the other's count is taken back (the
   * failed one's outcome is unknown: its count stays rather than refunding an earlier failure).
   */
  private async countedOrUndone(
    [account, client]: readonly [PromiseSettledResult<ThrottleState>, PromiseSettledResult<ThrottleState>],
    [accountCounter, addressCounter]: readonly [string, string],
  ): Promise<[ThrottleState, ThrottleState]> {
    if (account.status === 'fulfilled' && client.status === 'fulfilled') return [account.value, client.value];
    await this.undo([
      ...(account.status === 'fulfilled' ? [{ refund: accountCounter }] : []),
      ...(client.status === 'fulfilled' ? [{ refund: addressCounter }] : []),
    ]);
    throw account.status === 'rejected' ? account.reason : (client as PromiseRejectedResult).reason;
  }

  /** Writes `undos`; those the database does not take now wait for the next count. */
  private async undo(undos: readonly Undo[]): Promise<void> {
    for (const undo of undos) this.undos.add(undo);
    await this.writeUndos().catch(() => undefined);
  }

  /** Writes the waiting undos, each once; throws when the database did not take one of them. */
  private writeUndos(): Promise<void> {
    this.writing ??= this.writeWaitingUndos().finally(() => (this.writing = undefined));
    return this.writing;
  }

  private async writeWaitingUndos(): Promise<void> {
    const waiting = [...this.undos];
    this.undos.clear();
    const results = await Promise.allSettled(
      waiting.map(async (undo) => {
        try {
          if (undo.refund !== undefined) await this.store.throttles.refund(undo.refund);
          if (undo.release !== undefined) await this.store.throttles.delete(undo.release);
        } catch (error) {
          this.undos.add(undo);
          throw error;
        }
      }),
    );
    const failure = results.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
  }

  private async releaseGates(attempt: Attempt): Promise<void> {
    await Promise.all(attempt.gates.map((gate) => this.store.throttles.delete(gate)));
  }

  /** The lock that refuses this account or address at `now` (the later-ending one), if any. */
  private async standingLock(
    uin: number,
    address: string,
    now: number,
  ): Promise<{ key: string; until: number } | undefined> {
    const [account, client] = await Promise.all([
      this.store.throttles.get(accountKey(uin)),
      this.store.throttles.get(addressKey(address)),
    ]);
    const accountUntil = account?.lockedUntil ?? 0;
    const clientUntil = client?.lockedUntil ?? 0;
    const lock =
      accountUntil >= clientUntil
        ? { key: accountKey(uin), until: accountUntil }
        : { key: addressKey(address), until: clientUntil };
    return lock.until > now ? lock : undefined;
  }

  private async applyLocks(
    uin: number,
    address: string,
    account: ThrottleState,
    client: ThrottleState,
    now: number,
  ): Promise<void> {
    const accountLock = lockMs(ACCOUNT, account.failures);
    const clientLock = lockMs(ADDRESS, client.failures);
    await Promise.all([
      accountLock > 0 ? this.store.throttles.lock(accountKey(uin), now + accountLock) : undefined,
      clientLock > 0 ? this.store.throttles.lock(addressKey(address), now + clientLock) : undefined,
    ]);
  }
}

const DAY_MS = 24 * 3600_000;

function refused(uin: number, address: string, retryAfter: number): Attempt {
  return { uin, address, retryAfter, account: NO_STATE, client: NO_STATE, gates: [] };
}
