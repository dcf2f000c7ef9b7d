import type { Kysely, Migration } from 'kysely';
import { addColumns } from './schema-helpers.js';

/**
 * The app launcher of the signed-in home page (docs/interface.md#admin-api): an admin may list an app for
 * everyone, with the address its tile opens. Same SQL on SQLite and PostgreSQL (0/1 integers).
 */
export const appLauncher: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await addColumns(db, 'apps', [
      ['listed', 'integer', { notNullDefault: 0 }],
      ['homepage_url', 'text'],
    ]);
  },
};
