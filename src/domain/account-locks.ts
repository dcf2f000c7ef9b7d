/** An admin's view of sign-in locks (docs/interface.md#people-groups-and-audit): who is locked, and Unlock. */
import type { Store } from '../storage/store.js';
import { accountKey } from './login-throttle-policy.js';

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
