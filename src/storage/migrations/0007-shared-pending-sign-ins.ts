import type { Kysely, Migration } from 'kysely';
import { addColumns } from './schema-helpers.js';

/**
 * A pending sign-in remembers "This is a shared computer" (docs/interface.md#sessions-and-sign-out), so the
 * session its second factor completes is a shared-computer one (docs/interface.md#second-factor). Same SQL
 * on SQLite and PostgreSQL (0/1 integers).
 */
export const sharedPendingSignIns: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await addColumns(db, 'pending_sign_ins', [['shared', 'integer', { notNullDefault: 0 }]]);
  },
};
