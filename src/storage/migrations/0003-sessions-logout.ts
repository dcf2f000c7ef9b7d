import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Sessions people can see and end, and OpenID Connect logout (docs/interface.md#sessions-and-sign-out):
 * a public session id `sid`, last-seen time, address, user agent and the shared-computer flag on sessions;
 * the `sid` carried by codes and refresh tokens into id_tokens; the apps' logout URIs; which apps received an
 * id_token in which session; and the back-channel logout deliveries still to be made.
 */
export const sessionsLogout: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('sessions').addColumn('sid', 'text').execute();
    await db.schema
      .alterTable('sessions')
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('sessions')
      .addColumn('idle_expires_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('sessions').addColumn('ip', 'text').execute();
    await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();
    await db.schema
      .alterTable('sessions')
      .addColumn('shared', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    // Sessions started before this migration: a sid from their id's digest (public: it is not the cookie),
    // seen when they started, idling out no earlier than they expire.
    await sql`update sessions set sid = substr(id_hash, 1, 22), last_seen_at = created_at,
      idle_expires_at = expires_at`.execute(db);
    await db.schema.createIndex('sessions_sid').on('sessions').column('sid').unique().execute();
    await db.schema
      .createIndex('sessions_idle_expires_at')
      .on('sessions')
      .column('idle_expires_at')
      .execute();

    await db.schema.alterTable('authorization_codes').addColumn('sid', 'text').execute();
    await db.schema.alterTable('refresh_tokens').addColumn('sid', 'text').execute();

    await db.schema
      .alterTable('apps')
      .addColumn('post_logout_redirect_uris', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
    await db.schema.alterTable('apps').addColumn('backchannel_logout_uri', 'text').execute();
    await db.schema.alterTable('apps').addColumn('backchannel_logout_last_at', 'bigint').execute();
    await db.schema.alterTable('apps').addColumn('backchannel_logout_last_result', 'text').execute();

    // OpenID Connect Back-Channel Logout 1.0 §2.1: which apps hold an id_token of which session.
    await db.schema
      .createTable('session_apps')
      .addColumn('sid', 'text', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('uin', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('session_apps_pk', ['sid', 'client_id'])
      .execute();
    await db.schema.createIndex('session_apps_client_id').on('session_apps').column('client_id').execute();

    // One logout_token to send per ended session and app; sent by whichever instance claims it first.
    await db.schema
      .createTable('logout_deliveries')
      .addColumn('sid', 'text', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('uin', 'bigint', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('first_attempt_at', 'bigint')
      .addColumn('last_attempt_at', 'bigint')
      .addColumn('last_result', 'text')
      .addPrimaryKeyConstraint('logout_deliveries_pk', ['sid', 'client_id'])
      .execute();
    await db.schema
      .createIndex('logout_deliveries_due')
      .on('logout_deliveries')
      .columns(['status', 'next_attempt_at'])
      .execute();
    await db.schema
      .createIndex('logout_deliveries_client_id')
      .on('logout_deliveries')
      .column('client_id')
      .execute();
  },
};
