import type { UserRecord } from '../storage/store.js';

/**
 * Whether the account may sign in and its tokens work at `now`: enabled, and not past its `expiresAt`
 * (docs/interface.md#people-groups-and-audit: an expired account acts as disabled).
 */
export function isActiveUser(user: Pick<UserRecord, 'disabled' | 'expiresAt'>, now: number): boolean {
  return !user.disabled && (user.expiresAt === null || user.expiresAt > now);
}
