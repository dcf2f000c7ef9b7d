import type { Kysely, Migration } from 'kysely';
import { addColumns } from './schema-helpers.js';

/**
 * Security events (docs/security.md): a password set by someone other than its owner (the first start, an
 * admin, a CSV import) must be changed at the next sign-in. Existing users keep theirs (0).
 */
export const securityEvents: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await addColumns(db, 'users', [['must_change_password', 'integer', { notNullDefault: 0 }]]);
  },
};
