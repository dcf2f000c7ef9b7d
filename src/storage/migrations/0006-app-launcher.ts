import { type Kysely, type Migration } from 'kysely';

/**
 * The app launcher of the signed-in home page (docs/interface.md#admin-api): an admin may list an app for
 * everyone, with the address its tile opens. Same SQL on SQLite and PostgreSQL (0/1 integers).
 */
export const appLauncher: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('apps')
      .addColumn('listed', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('apps').addColumn('homepage_url', 'text').execute();
  },
};
