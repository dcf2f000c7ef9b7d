/**
 * The login_throttles table: its queries (docs/architecture.md#storage). Each counting
 * query is one statement, so concurrent attempts are each counted (docs/security.md).
 */
import { type Expression, type ExpressionBuilder, type SqlBool, type UpdateObject, sql } from 'kysely';
import { Repository } from './connection.js';
import type { Database } from './schema.js';
import type { ThrottleRepository, ThrottleState } from './store.js';

/** A window older than this, and not locked, is forgotten by `purgeExpired`. */
const STALE_WINDOW_MS = 3600 * 1000;

/** A row selected (or returned) as a ThrottleState. */
const THROTTLE_STATE = ['failures', 'window_start as windowStart', 'locked_until as lockedUntil'] as const;

export class Throttles extends Repository implements ThrottleRepository {
  get(key: string): Promise<ThrottleState | undefined> {
    return this.db
      .selectFrom('login_throttles')
      .select(THROTTLE_STATE)
      .where('key', '=', key)
      .executeTakeFirst();
  }

  hit(key: string, now: number, windowStartedBy: number): Promise<ThrottleState> {
    // One statement, so concurrent attempts are each counted (SET reads the row as it was before).
    const windowOver = sql<boolean>`login_throttles.window_start <= ${windowStartedBy}`;
    return this.db
      .insertInto('login_throttles')
      .values({ key, failures: 1, window_start: now, locked_until: 0 })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          failures: sql<number>`case when ${windowOver} then 1 else login_throttles.failures + 1 end`,
          window_start: sql<number>`case when ${windowOver} then excluded.window_start else login_throttles.window_start end`,
        }),
      )
      .returning(THROTTLE_STATE)
      .executeTakeFirstOrThrow();
  }

  lock(key: string, until: number): Promise<void> {
    return this.changeWhere(key, { locked_until: until }, (eb) => eb('locked_until', '<', until));
  }

  refund(key: string): Promise<void> {
    return this.changeWhere(key, { failures: sql<number>`failures - 1` }, (eb) => eb('failures', '>', 0));
  }

  /** Changes `key`'s row only where `guard` holds: one statement, so a lock never moves back nor a count below 0. */
  private async changeWhere(
    key: string,
    changes: UpdateObject<Database, 'login_throttles'>,
    guard: (eb: ExpressionBuilder<Database, 'login_throttles'>) => Expression<SqlBool>,
  ): Promise<void> {
    await this.db.updateTable('login_throttles').set(changes).where('key', '=', key).where(guard).execute();
  }

  async delete(key: string): Promise<void> {
    await this.db.deleteFrom('login_throttles').where('key', '=', key).execute();
  }

  async getMany(keys: readonly string[]): Promise<Map<string, ThrottleState>> {
    if (keys.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('login_throttles')
      .select(['key', ...THROTTLE_STATE])
      .where('key', 'in', [...keys])
      .execute();
    return new Map(rows.map(({ key, ...state }) => [key, state]));
  }

  /** Deletes the throttles neither locked nor counting at `now`; answers how many. */
  async purgeExpired(now: number): Promise<number> {
    const result = await this.db
      .deleteFrom('login_throttles')
      .where('locked_until', '<', now)
      .where('window_start', '<', now - STALE_WINDOW_MS)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
