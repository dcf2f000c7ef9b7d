import { type Kysely, type Migration, sql } from 'kysely';
import { type Column, addColumns, createIndexes, createTable } from './schema-helpers.js';

/** The leading columns of a table with a row per session and app (and that session's user), keyed by both. */
const SESSION_APP: readonly Column[] = [
  ['sid', 'text', 'not null'],
  ['client_id', 'text', 'not null'],
  ['uin', 'bigint', 'not null'],
];
const SESSION_APP_KEY = ['sid', 'client_id'];

/**
 * Sessions people can see and end, and OpenID Connect logout (docs/interface.md#sessions-and-sign-out):
 * a public session id `sid`, last-seen time, address, user agent and the shared-computer flag on sessions;
 * the `sid` carried by codes and refresh tokens into id_tokens; the apps' logout URIs; which apps received an
 * id_token in which session; and the back-channel logout deliveries still to be made.
 */
export const sessionsLogout: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await addColumns(db, 'sessions', [
      ['sid', 'text'],
      ['last_seen_at', 'bigint', { notNullDefault: 0 }],
      ['idle_expires_at', 'bigint', { notNullDefault: 0 }],
      ['ip', 'text'],
      ['user_agent', 'text'],
      ['shared', 'integer', { notNullDefault: 0 }],
    ]);
    // Sessions started before this migration: a sid from their id's digest (public: it is not the cookie),
    // seen when they started, idling out no earlier than they expire.
    await sql`update sessions set sid = substr(id_hash, 1, 22), last_seen_at = created_at,
      idle_expires_at = expires_at`.execute(db);
    await createIndexes(db, 'sessions', {
      sessions_sid: { columns: ['sid'], unique: true },
      sessions_idle_expires_at: ['idle_expires_at'],
    });

    await addColumns(db, 'authorization_codes', [['sid', 'text']]);
    await addColumns(db, 'refresh_tokens', [['sid', 'text']]);

    await addColumns(db, 'apps', [
      ['post_logout_redirect_uris', 'text', { notNullDefault: '[]' }],
      ['backchannel_logout_uri', 'text'],
      ['backchannel_logout_last_at', 'bigint'],
      ['backchannel_logout_last_result', 'text'],
    ]);

    // OpenID Connect Back-Channel Logout 1.0 §2.1: which apps hold an id_token of which session.
    await createTable(db, 'session_apps', [...SESSION_APP, ['created_at', 'bigint', 'not null']], {
      primaryKey: SESSION_APP_KEY,
    });
    await createIndexes(db, 'session_apps', { session_apps_client_id: ['client_id'] });

    // One logout_token to send per ended session and app; sent by whichever instance claims it first.
    await createTable(
      db,
      'logout_deliveries',
      [
        ...SESSION_APP,
        ['status', 'text', { notNullDefault: 'pending' }],
        ['attempts', 'integer', { notNullDefault: 0 }],
        ['next_attempt_at', 'bigint', { notNullDefault: 0 }],
        ['lease_until', 'bigint', { notNullDefault: 0 }],
        ['first_attempt_at', 'bigint'],
        ['last_attempt_at', 'bigint'],
        ['last_result', 'text'],
      ],
      { primaryKey: SESSION_APP_KEY },
    );
    await createIndexes(db, 'logout_deliveries', {
      logout_deliveries_due: ['status', 'next_attempt_at'],
      logout_deliveries_client_id: ['client_id'],
    });
  },
};
