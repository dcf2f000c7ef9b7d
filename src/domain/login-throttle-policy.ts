/** The sign-in throttle's arithmetic (login-throttle.ts): the two policies, their locks, and the counters' keys. */
import type { ThrottleState } from '../storage/store.js';

interface Policy {
  /** The failure that reaches this count locks; each further one doubles the lock. */
  readonly lockAfter: number;
  readonly windowMs: number;
  readonly firstLockMs: number;
  readonly maxLockMs: number;
}

export const ACCOUNT: Policy = {
  lockAfter: 5,
  windowMs: 60 * 60_000,
  firstLockMs: 30_000,
  maxLockMs: 15 * 60_000,
};
export const ADDRESS: Policy = {
  lockAfter: 100,
  windowMs: 15 * 60_000,
  firstLockMs: 60_000,
  maxLockMs: 15 * 60_000,
};

export function lockMs(policy: Policy, failures: number): number {
  const over = failures - policy.lockAfter;
  return over < 0 ? 0 : Math.min(policy.firstLockMs * 2 ** over, policy.maxLockMs);
}

/** How one counter's state answers an attempt counted on it. */
type Verdict =
  { readonly check: true; readonly gate?: string } | { readonly check: false; readonly wait: number };

export function verdict(policy: Policy, key: string, state: ThrottleState, now: number): Verdict {
  if (state.failures <= policy.lockAfter) return { check: true };
  // Locked since this attempt looked (another attempt just failed): wait for that lock.
  if (state.lockedUntil > now) return { check: false, wait: Math.ceil((state.lockedUntil - now) / 1000) };
  // A lock of this window has expired: the next attempt is checked, through the gate.
  if (state.lockedUntil > state.windowStart) return { check: true, gate: gateKey(key) };
  // Over the budget with no lock yet: the surplus of a burst, while the budget's attempts are being checked.
  return { check: false, wait: Math.ceil(policy.firstLockMs / 1000) };
}

export const secondsUntil = (until: number, now: number): number => Math.ceil((until - now) / 1000);

export const accountKey = (uin: number): string => `uin:${uin}`;
export const addressKey = (address: string): string => `ip:${address}`;
export const gateKey = (key: string): string => `${key}:checking`;

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
