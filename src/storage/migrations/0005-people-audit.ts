import { type Kysely, type Migration } from 'kysely';

/**
 * People, groups and the audit trail (docs/interface.md#people-groups-and-audit): profile columns on users,
 * access groups on apps, one-time reset codes and the audit events. Identical on SQLite and PostgreSQL:
 * times are epoch-millisecond BIGINTs, lists JSON text.
 */
export const peopleAudit: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('users').addColumn('name', 'text').execute();
    await db.schema.alterTable('users').addColumn('email', 'text').execute();
    await db.schema
      .alterTable('users')
      .addColumn('groups', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
    await db.schema.alterTable('users').addColumn('expires_at', 'bigint').execute();
    await db.schema.alterTable('users').addColumn('last_sign_in_at', 'bigint').execute();
    await db.schema
      .alterTable('apps')
      .addColumn('allowed_groups', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();

    // One live code per user: issuing a new one replaces the old.
    await db.schema
      .createTable('reset_codes')
      .addColumn('uin', 'bigint', (c) => c.primaryKey())
      .addColumn('code_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('reset_codes_expires_at').on('reset_codes').column('expires_at').execute();

    await db.schema
      .createTable('audit_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('actor_uin', 'bigint')
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('target', 'text')
      .addColumn('ip', 'text')
      .addColumn('user_agent', 'text')
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('detail', 'text')
      .execute();
    // The listing reads newest first by (at, id); the filters narrow by actor, target or action.
    await db.schema.createIndex('audit_events_at_id').on('audit_events').columns(['at', 'id']).execute();
    await db.schema
      .createIndex('audit_events_actor_at')
      .on('audit_events')
      .columns(['actor_uin', 'at'])
      .execute();
    await db.schema
      .createIndex('audit_events_target_at')
      .on('audit_events')
      .columns(['target', 'at'])
      .execute();
    await db.schema
      .createIndex('audit_events_action_at')
      .on('audit_events')
      .columns(['action', 'at'])
      .execute();
  },
};
