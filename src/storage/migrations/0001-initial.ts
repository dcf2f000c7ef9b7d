import type { Kysely, Migration } from 'kysely';
import { LIFETIME, createIndexes, createTable } from './schema-helpers.js';

/** The initial schema, identical on SQLite and PostgreSQL; an index for every hot look-up. */
export const initial: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await createTable(db, 'users', [
      ['uin', 'bigint', 'primary key'],
      ['password_hash', 'text', 'not null'],
      ['user_group', 'text', 'not null'],
      ['created_at', 'bigint', 'not null'],
      ['disabled', 'integer', { notNullDefault: 0 }],
    ]);
    await createIndexes(db, 'users', { users_user_group: ['user_group', 'disabled'] });

    await createTable(db, 'apps', [
      ['client_id', 'text', 'primary key'],
      ['name', 'text', 'not null'],
      ['emoji', 'text', 'not null'],
      ['secret_hash', 'text', 'not null'],
      ['redirect_uris', 'text', 'not null'],
      ['created_at', 'bigint', 'not null'],
      ['disabled', 'integer', { notNullDefault: 0 }],
      ['allow_refresh_tokens', 'integer', { notNullDefault: 1 }],
    ]);

    await createTable(db, 'sessions', [
      ['id_hash', 'text', 'primary key'],
      ['uin', 'bigint', 'not null'],
      ...LIFETIME,
    ]);
    await createIndexes(db, 'sessions', {
      sessions_uin: ['uin'],
      sessions_expires_at: ['expires_at'],
    });

    await createTable(db, 'authorization_codes', [
      ['code_hash', 'text', 'primary key'],
      ['client_id', 'text', 'not null'],
      ['uin', 'bigint', 'not null'],
      ['redirect_uri', 'text', 'not null'],
      ['scope', 'text'],
      ['nonce', 'text'],
      ['code_challenge', 'text'],
      ['code_challenge_method', 'text'],
      ['auth_time', 'bigint', 'not null'],
      ...LIFETIME,
      ['used_at', 'bigint'],
    ]);
    await createIndexes(db, 'authorization_codes', {
      authorization_codes_expires_at: ['expires_at'],
      authorization_codes_client_id: ['client_id'],
    });

    await createTable(db, 'access_tokens', [
      ['token_hash', 'text', 'primary key'],
      ['client_id', 'text', 'not null'],
      ['uin', 'bigint', 'not null'],
      ['scope', 'text'],
      ['code_hash', 'text'],
      ['family_id', 'text'],
      ...LIFETIME,
      ['revoked', 'integer', { notNullDefault: 0 }],
    ]);
    await createIndexes(db, 'access_tokens', {
      access_tokens_code_hash: ['code_hash'],
      // Only tokens granted with offline_access belong to a refresh family: the index skips the rest.
      access_tokens_family_id: { columns: ['family_id'], whereNotNull: 'family_id' },
      access_tokens_uin_client: ['uin', 'client_id'],
      access_tokens_client_id: ['client_id'],
      access_tokens_expires_at: ['expires_at'],
    });

    await createTable(db, 'refresh_tokens', [
      ['token_hash', 'text', 'primary key'],
      ['family_id', 'text', 'not null'],
      ['client_id', 'text', 'not null'],
      ['uin', 'bigint', 'not null'],
      ['scope', 'text'],
      ['auth_time', 'bigint', 'not null'],
      ['code_hash', 'text'],
      ...LIFETIME,
      ['rotated_at', 'bigint'],
      ['revoked', 'integer', { notNullDefault: 0 }],
    ]);
    await createIndexes(db, 'refresh_tokens', {
      refresh_tokens_family_id: ['family_id'],
      refresh_tokens_code_hash: ['code_hash'],
      refresh_tokens_uin_client: ['uin', 'client_id'],
      refresh_tokens_client_id: ['client_id'],
      refresh_tokens_expires_at: ['expires_at'],
    });

    await createTable(
      db,
      'consents',
      [
        ['uin', 'bigint', 'not null'],
        ['client_id', 'text', 'not null'],
        ['scope', 'text'],
        ['granted_at', 'bigint', 'not null'],
      ],
      { primaryKey: ['uin', 'client_id'] },
    );
    await createIndexes(db, 'consents', { consents_client_id: ['client_id'] });

    await createTable(db, 'login_throttles', [
      ['key', 'text', 'primary key'],
      ['failures', 'integer', 'not null'],
      ['window_start', 'bigint', 'not null'],
      ['locked_until', 'bigint', 'not null'],
    ]);

    await createTable(db, 'signing_keys', [
      ['kid', 'text', 'primary key'],
      ['alg', 'text', 'not null'],
      ['private_jwk', 'text', 'not null'],
      ['public_jwk', 'text', 'not null'],
      ['created_at', 'bigint', 'not null'],
    ]);
  },
};
