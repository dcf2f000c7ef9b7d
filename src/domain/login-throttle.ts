import type { Clock } from '../clock.js';
import type { Store, ThrottleState } from '../storage/store.js';

/**
 * Sign-in throttling per account and per client address (docs/security.md), kept in the database so every instance
 * sees the same counters. An account locks at its fifth failure within an hour, for twice as long after each
 * further one (30 s, 1 min, 2 min … at most 15 min);
 * an address gets a much larger budget, because a whole school may sign in through one NAT address.
 *
 * An attempt is counted BEFORE the password is checked and refunded when it succeeds, so a burst of
 * simultaneous guesses cannot slip past the count: beyond the budget they are refused unverified.
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

/** One counted sign-in attempt; settle it with `succeeded` or `failed`. */
export interface Attempt {
  readonly uin: number;
  readonly address: string;
  /** Seconds to wait when the attempt is refused; 0 when the password may be checked. */
  readonly retryAfter: number;
  readonly account: ThrottleState;
  readonly client: ThrottleState;
}

const NO_STATE: ThrottleState = { failures: 0, windowStart: 0, lockedUntil: 0 };

function lockMs(policy: Policy, failures: number): number {
  const over = failures - policy.lockAfter;
  return over < 0 ? 0 : Math.min(policy.firstLockMs * 2 ** over, policy.maxLockMs);
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
    if (locked > 0) return { uin, address, retryAfter: locked, account: NO_STATE, client: NO_STATE };
    const [account, client] = await Promise.all([
      this.store.throttles.hit(accountKey(uin), now, now - ACCOUNT.windowMs),
      this.store.throttles.hit(addressKey(address), now, now - ADDRESS.windowMs),
    ]);
    let retryAfter = 0;
    // More attempts in flight than the budget allows: refuse the surplus and lock, unverified.
    if (account.failures > ACCOUNT.lockAfter || client.failures > ADDRESS.lockAfter) {
      retryAfter = await this.applyLocks(uin, address, account, client, now);
    }
    return { uin, address, retryAfter, account, client };
  }

  /** The password was right: the account starts afresh and the address gets its attempt back. */
  async succeeded(attempt: Attempt): Promise<void> {
    await Promise.all([
      this.store.throttles.delete(accountKey(attempt.uin)),
      this.store.throttles.refund(addressKey(attempt.address)),
    ]);
  }

  /** The password was wrong: the counted attempt stays, and locks when it reached the limit. */
  async failed(attempt: Attempt): Promise<void> {
    await this.applyLocks(attempt.uin, attempt.address, attempt.account, attempt.client, this.clock.now());
  }

  /** Seconds until a sign-in may be tried again (0: now), without counting an attempt. */
  async retryAfter(uin: number, address: string): Promise<number> {
    return this.lockedFor(uin, address, this.clock.now());
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
  ): Promise<number> {
    const accountLock = lockMs(ACCOUNT, account.failures);
    const clientLock = lockMs(ADDRESS, client.failures);
    await Promise.all([
      accountLock > 0 ? this.store.throttles.lock(accountKey(uin), now + accountLock) : undefined,
      clientLock > 0 ? this.store.throttles.lock(addressKey(address), now + clientLock) : undefined,
    ]);
    const longest = Math.max(accountLock, clientLock);
    return longest > 0 ? Math.ceil(longest / 1000) : 0;
  }
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
