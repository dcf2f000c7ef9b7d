import type { Clock } from '../clock.js';
import type { Store, ThrottleState } from '../storage/store.js';

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
interface Policy {
  /** The failure that reaches this count locks; each further one doubles the lock. */
  readonly lockAfter: number;
  readonly windowMs: number;
  readonly firstLockMs: number;
  readonly maxLockMs: number;
}

const ACCOUNT: Policy = { lockAfter: 5, windowMs: 60 * 60_000, firstLockMs: 30_000, maxLockMs: 15 * 60_000 };
const ADDRESS: Policy = {
  lockAfter: 100,
  windowMs: 15 * 60_000,
  firstLockMs: 60_000,
  maxLockMs: 15 * 60_000,
};

/**
 * What a failed attempt tells the person signing in about the account's lock (docs/interface.md#browser-session-api):
 * `locked_for` when this failure locked it, `next_failure_locks_for` when the next one will, in seconds; empty
 * otherwise. It depends only on the count kept for the uin typed, known or not, so it tells no one whether
 * the account exists.
 */
export function lockWarning(attempt: Attempt): { locked_for?: number; next_failure_locks_for?: number } {
  const failures = attempt.account.failures;
  if (failures >= ACCOUNT.lockAfter) return { locked_for: lockMs(ACCOUNT, failures) / 1000 };
  if (failures + 1 >= ACCOUNT.lockAfter) {
    return { next_failure_locks_for: lockMs(ACCOUNT, failures + 1) / 1000 };
  }
  return {};
}

/** A check gate left taken by a crashed instance opens again after this long. */
const GATE_MS = 60_000;

/** One counted sign-in attempt; settle it with `succeeded` or `failed`. */
export interface Attempt {
  readonly uin: number;
  readonly address: string;
  /** Seconds to wait when the attempt is refused; 0 when the password may be checked. */
  readonly retryAfter: number;
  readonly account: ThrottleState;
  readonly client: ThrottleState;
  /** The check gates this attempt holds, released when it settles. */
  readonly gates: readonly string[];
  /** For an attempt refused during a lock: the locked counter and when its lock ends (epoch ms). */
  readonly lock?: { readonly key: string; readonly until: number };
}

/** Refusals that no standing lock explains (a burst's surplus, a busy check gate) are recorded once per this. */
const TRANSIENT_REFUSAL_MS = 30_000;

const NO_STATE: ThrottleState = { failures: 0, windowStart: 0, lockedUntil: 0 };

function lockMs(policy: Policy, failures: number): number {
  const over = failures - policy.lockAfter;
  return over < 0 ? 0 : Math.min(policy.firstLockMs * 2 ** over, policy.maxLockMs);
}

/** How one counter's state answers an attempt counted on it. */
type Verdict =
  { readonly check: true; readonly gate?: string } | { readonly check: false; readonly wait: number };

function verdict(policy: Policy, key: string, state: ThrottleState, now: number): Verdict {
  if (state.failures <= policy.lockAfter) return { check: true };
  // Locked since this attempt looked (another attempt just failed): wait for that lock.
  if (state.lockedUntil > now) return { check: false, wait: Math.ceil((state.lockedUntil - now) / 1000) };
  // A lock of this window has expired: the next attempt is checked, through the gate.
  if (state.lockedUntil > state.windowStart) return { check: true, gate: gateKey(key) };
  // Over the budget with no lock yet: the surplus of a burst, while the budget's attempts are being checked.
  return { check: false, wait: Math.ceil(policy.firstLockMs / 1000) };
}

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
  async succeeded(attempt: Attempt): Promise<void> {
    await Promise.all([
      this.store.throttles.delete(accountKey(attempt.uin)),
      this.store.throttles.refund(addressKey(attempt.address)),
    ]);
    this.settled.add(attempt);
    await this.releaseGates(attempt);
  }

  /**
   * The password was right but a second factor is still awaited: the attempt is taken back, and the account's
   * earlier failures stay, so wrong second-factor codes keep counting across new password attempts. The check
   * gate opens, so the second factor's own attempt does not wait for the gate to lapse (docs/security.md).
   */
  async passwordAccepted(attempt: Attempt): Promise<void> {
    await Promise.all([
      this.store.throttles.refund(accountKey(attempt.uin)),
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

const secondsUntil = (until: number, now: number): number => Math.ceil((until - now) / 1000);

function refused(uin: number, address: string, retryAfter: number): Attempt {
  return { uin, address, retryAfter, account: NO_STATE, client: NO_STATE, gates: [] };
}

/**
 * When each of these accounts' sign-in lock ends (epoch ms), for those locked at `now`
 * (docs/interface.md#people-groups-and-audit: the Users list shows "locked until").
 */
export async function accountLocks(
  store: Store,
  uins: readonly number[],
  now: number,
): Promise<Map<number, number>> {
  const states = await store.throttles.getMany(uins.map(accountKey));
  const locks = new Map<number, number>();
  for (const uin of uins) {
    const until = states.get(accountKey(uin))?.lockedUntil ?? 0;
    if (until > now) locks.set(uin, until);
  }
  return locks;
}

/** An admin's **Unlock**: the account's failures and lock are forgotten (its address's are not). */
export async function unlockAccount(store: Store, uin: number): Promise<void> {
  await store.throttles.delete(accountKey(uin));
}

const accountKey = (uin: number): string => `uin:${uin}`;
const addressKey = (address: string): string => `ip:${address}`;
const gateKey = (key: string): string => `${key}:checking`;
