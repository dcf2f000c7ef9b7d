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
}

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

export class LoginThrottle {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Counts an attempt; answers it with `retryAfter` > 0 when it must be refused without checking. */
  async begin(uin: number, address: string): Promise<Attempt> {
    const now = this.clock.now();
    const locked = await this.lockedFor(uin, address, now);
    // Refused during a lock without counting: hammering a locked account does not lengthen its owner's wait.
    if (locked > 0) return refused(uin, address, locked);
    const [account, client] = await Promise.all([
      this.store.throttles.hit(accountKey(uin), now, now - ACCOUNT.windowMs),
      this.store.throttles.hit(addressKey(address), now, now - ADDRESS.windowMs),
    ]);
    const verdicts = [
      verdict(ACCOUNT, accountKey(uin), account, now),
      verdict(ADDRESS, addressKey(address), client, now),
    ];
    let wait = 0;
    const gates: string[] = [];
    for (const v of verdicts) {
      if (!v.check) wait = Math.max(wait, v.wait);
      else if (v.gate !== undefined && wait === 0) {
        if (await this.takeGate(v.gate, now)) gates.push(v.gate);
        else wait = 1; // Another attempt is being checked; its answer decides the next lock.
      }
    }
    if (wait > 0) {
      // Refused unchecked, so not counted.
      await Promise.all([
        ...gates.map((gate) => this.store.throttles.delete(gate)),
        this.store.throttles.refund(accountKey(uin)),
        this.store.throttles.refund(addressKey(address)),
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
    await this.releaseGates(attempt);
  }

  /**
   * The password was right but a second factor is still awaited: the attempt is taken back, and the account's
   * earlier failures stay, so wrong second-factor codes keep counting across new password attempts.
   */
  async passwordAccepted(attempt: Attempt): Promise<void> {
    await Promise.all([
      this.store.throttles.refund(accountKey(attempt.uin)),
      this.store.throttles.refund(addressKey(attempt.address)),
    ]);
  }

  /** The password was wrong: the counted attempt stays, and locks when it reached the limit. */
  async failed(attempt: Attempt): Promise<void> {
    // The lock is in place before the gate opens, so no other attempt slips in between.
    await this.applyLocks(attempt.uin, attempt.address, attempt.account, attempt.client, this.clock.now());
    await this.releaseGates(attempt);
  }

  /** Seconds until a sign-in may be tried again (0: now), without counting an attempt. */
  async retryAfter(uin: number, address: string): Promise<number> {
    return this.lockedFor(uin, address, this.clock.now());
  }

  /** Takes a check gate: the attempt whose count on it is 1 holds it until it settles. */
  private async takeGate(gate: string, now: number): Promise<boolean> {
    const state = await this.store.throttles.hit(gate, now, now - GATE_MS);
    return state.failures === 1;
  }

  private async releaseGates(attempt: Attempt): Promise<void> {
    await Promise.all(attempt.gates.map((gate) => this.store.throttles.delete(gate)));
  }

  private async lockedFor(uin: number, address: string, now: number): Promise<number> {
    const [account, client] = await Promise.all([
      this.store.throttles.get(accountKey(uin)),
      this.store.throttles.get(addressKey(address)),
    ]);
    const until = Math.max(account?.lockedUntil ?? 0, client?.lockedUntil ?? 0);
    return until > now ? Math.ceil((until - now) / 1000) : 0;
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
