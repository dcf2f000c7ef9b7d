import type { Kysely, Migration } from 'kysely';

/**
 * Security events (docs/security.md): a password set by someone other than its owner (the first start, an
 * admin, a CSV import) must be changed at the next sign-in. Existing users keep theirs (0).
 */
export const securityEvents: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('users')
      .addColumn('must_change_password', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
