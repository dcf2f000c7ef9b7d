import type { Clock } from '../clock.js';
import type { Store, ThrottleState } from '../storage/store.js';

/**
 * Sign-in throttling per account and per client address (SPEC §9), kept in the database so every instance
 * sees the same counters. An account locks after a few failures, for longer after each further one; an
 * address gets a much larger budget, because a whole school may sign in through one NAT address.
 */
interface Policy {
  /** The failure that reaches this count locks; each further one doubles the lock. */
  readonly lockAfter: number;
  readonly windowMs: number;
  readonly firstLockMs: number;
  readonly maxLockMs: number;
}

const ACCOUNT: Policy = {
  lockAfter: 5,
  windowMs: 15 * 60_000,
  firstLockMs: 30_000,
  maxLockMs: 15 * 60_000,
};
const ADDRESS: Policy = {
  lockAfter: 100,
  windowMs: 15 * 60_000,
  firstLockMs: 60_000,
  maxLockMs: 15 * 60_000,
};

export class LoginThrottle {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Seconds until a sign-in may be tried again, or 0 when it may be tried now. */
  async retryAfter(uin: number, address: string): Promise<number> {
    const now = this.clock.now();
    const [account, client] = await Promise.all([
      this.store.throttles.get(accountKey(uin)),
      this.store.throttles.get(addressKey(address)),
    ]);
    const until = Math.max(account?.lockedUntil ?? 0, client?.lockedUntil ?? 0);
    return until > now ? Math.ceil((until - now) / 1000) : 0;
  }

  async recordFailure(uin: number, address: string): Promise<void> {
    const now = this.clock.now();
    await Promise.all([
      this.bump(accountKey(uin), ACCOUNT, now),
      this.bump(addressKey(address), ADDRESS, now),
    ]);
  }

  async recordSuccess(uin: number): Promise<void> {
    await this.store.throttles.delete(accountKey(uin));
  }

  private async bump(key: string, policy: Policy, now: number): Promise<void> {
    const previous = await this.store.throttles.get(key);
    const fresh = !previous || now - previous.windowStart > policy.windowMs;
    const failures = fresh ? 1 : previous.failures + 1;
    const over = failures - policy.lockAfter;
    const lockMs = over >= 0 ? Math.min(policy.firstLockMs * 2 ** over, policy.maxLockMs) : 0;
    const state: ThrottleState = {
      failures,
      windowStart: fresh ? now : previous.windowStart,
      lockedUntil: lockMs > 0 ? now + lockMs : 0,
    };
    await this.store.throttles.put(key, state);
  }
}

const accountKey = (uin: number): string => `uin:${uin}`;
const addressKey = (address: string): string => `ip:${address}`;
