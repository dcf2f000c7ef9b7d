import type { Kysely, Migration } from 'kysely';
import { createTable } from './schema-helpers.js';

/**
 * When each user last signed in with their password and a second factor (docs/security.md#second-factors): a
 * password reset removes the factors added after it, which someone holding a stolen session may have added.
 * A table of its own, so this migration depends on no other new one. Same SQL on SQLite and PostgreSQL.
 */
export const secondFactorTrust: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await createTable(db, 'second_factor_sign_ins', [
      ['uin', 'bigint', 'primary key'],
      ['signed_in_at', 'bigint', 'not null'],
    ]);
  },
};
