import type { Kysely, Migration } from 'kysely';
import { LIFETIME, addColumns, createIndexes, createTable } from './schema-helpers.js';

/**
 * People, groups and the audit trail (docs/interface.md#people-groups-and-audit): profile columns on users,
 * access groups on apps, one-time reset codes and the audit events. Identical on SQLite and PostgreSQL:
 * times are epoch-millisecond BIGINTs, lists JSON text.
 */
export const peopleAudit: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await addColumns(db, 'users', [
      ['name', 'text'],
      ['email', 'text'],
      ['groups', 'text', { notNullDefault: '[]' }],
      ['expires_at', 'bigint'],
      ['last_sign_in_at', 'bigint'],
    ]);
    await addColumns(db, 'apps', [['allowed_groups', 'text', { notNullDefault: '[]' }]]);

    // One live code per user: issuing a new one replaces the old.
    await createTable(db, 'reset_codes', [
      ['uin', 'bigint', 'primary key'],
      ['code_hash', 'text', 'not null'],
      ...LIFETIME,
    ]);
    await createIndexes(db, 'reset_codes', { reset_codes_expires_at: ['expires_at'] });

    await createTable(db, 'audit_events', [
      ['id', 'text', 'primary key'],
      ['at', 'bigint', 'not null'],
      ['actor_uin', 'bigint'],
      ['action', 'text', 'not null'],
      ['target', 'text'],
      ['ip', 'text'],
      ['user_agent', 'text'],
      ['outcome', 'text', 'not null'],
      ['detail', 'text'],
    ]);
    // The listing reads newest first by (at, id); the filters narrow by actor, target or action.
    await createIndexes(db, 'audit_events', {
      audit_events_at_id: ['at', 'id'],
      audit_events_actor_at: ['actor_uin', 'at'],
      audit_events_target_at: ['target', 'at'],
      audit_events_action_at: ['action', 'at'],
    });
  },
};
