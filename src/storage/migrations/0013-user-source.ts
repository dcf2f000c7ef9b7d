import type { Kysely, Migration } from 'kysely';
import { addColumns } from './schema-helpers.js';

/**
 * Where a user's password lives (docs/interface.md#the-schools-directory): `local` (an argon2id hash here) or
 * `ldap` (the school's directory checks it; no password is stored). Every existing user is local. It touches
 * only this column, so it runs the same whichever other migrations ran before it. Same SQL on SQLite and
 * PostgreSQL.
 */
export const userSource: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await addColumns(db, 'users', [['source', 'text', { notNullDefault: 'local' }]]);
  },
};
