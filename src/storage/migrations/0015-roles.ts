import type { Kysely, Migration } from 'kysely';
import { addColumns, createTable } from './schema-helpers.js';

/**
 * Delegated administration (docs/interface.md#roles): the roles a user holds beside `user_group`, in a table
 * of their own so that the users table, and every answer read from it, stays as it was; and the app that
 * acted, for an admin-API call made with a service token (`actor_client_id`). It only adds (a table and a
 * column to audit_events, which every schema has had since 0005), so it runs the same whichever other
 * migrations ran before it. Same SQL on SQLite and PostgreSQL.
 */
export const roles: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await createTable(
      db,
      'user_roles',
      [
        ['uin', 'bigint', 'not null'],
        // helpdesk | auditor
        ['role', 'text', 'not null'],
        // JSON array of the group tags the role covers.
        ['groups', 'text', 'not null'],
        ['granted_at', 'bigint', 'not null'],
      ],
      { primaryKey: ['uin', 'role'] },
    );
    await addColumns(db, 'audit_events', [['actor_client_id', 'text']]);
  },
};
