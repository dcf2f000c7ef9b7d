import { type Kysely, type Migration, sql } from 'kysely';

/** The initial schema, identical on SQLite and PostgreSQL; an index for every hot look-up. */
export const initial: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('users')
      .addColumn('uin', 'bigint', (c) => c.primaryKey())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('user_group', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('users_user_group').on('users').columns(['user_group', 'disabled']).execute();

    await db.schema
      .createTable('apps')
      .addColumn('client_id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('emoji', 'text', (c) => c.notNull())
      .addColumn('secret_hash', 'text', (c) => c.notNull())
      .addColumn('redirect_uris', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('allow_refresh_tokens', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();

    await db.schema
      .createTable('sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('uin', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_uin').on('sessions').column('uin').execute();
    await db.schema.createIndex('sessions_expires_at').on('sessions').column('expires_at').execute();

    await db.schema
      .createTable('authorization_codes')
      .addColumn('code_hash', 'text', (c) => c.primaryKey())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('uin', 'bigint', (c) => c.notNull())
      .addColumn('redirect_uri', 'text', (c) => c.notNull())
      .addColumn('scope', 'text')
      .addColumn('nonce', 'text')
      .addColumn('code_challenge', 'text')
      .addColumn('code_challenge_method', 'text')
      .addColumn('auth_time', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('authorization_codes_expires_at')
      .on('authorization_codes')
      .column('expires_at')
      .execute();
    await db.schema
      .createIndex('authorization_codes_client_id')
      .on('authorization_codes')
      .column('client_id')
      .execute();

    await db.schema
      .createTable('access_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('uin', 'bigint', (c) => c.notNull())
      .addColumn('scope', 'text')
      .addColumn('code_hash', 'text')
      .addColumn('family_id', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('access_tokens_code_hash').on('access_tokens').column('code_hash').execute();
    // Only tokens granted with offline_access belong to a refresh family: the index skips the rest.
    await db.schema
      .createIndex('access_tokens_family_id')
      .on('access_tokens')
      .column('family_id')
      .where(sql.ref('family_id'), 'is not', null)
      .execute();
    await db.schema
      .createIndex('access_tokens_uin_client')
      .on('access_tokens')
      .columns(['uin', 'client_id'])
      .execute();
    await db.schema.createIndex('access_tokens_client_id').on('access_tokens').column('client_id').execute();
    await db.schema
      .createIndex('access_tokens_expires_at')
      .on('access_tokens')
      .column('expires_at')
      .execute();

    await db.schema
      .createTable('refresh_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('family_id', 'text', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('uin', 'bigint', (c) => c.notNull())
      .addColumn('scope', 'text')
      .addColumn('auth_time', 'bigint', (c) => c.notNull())
      .addColumn('code_hash', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('rotated_at', 'bigint')
      .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createIndex('refresh_tokens_family_id')
      .on('refresh_tokens')
      .column('family_id')
      .execute();
    await db.schema
      .createIndex('refresh_tokens_code_hash')
      .on('refresh_tokens')
      .column('code_hash')
      .execute();
    await db.schema
      .createIndex('refresh_tokens_uin_client')
      .on('refresh_tokens')
      .columns(['uin', 'client_id'])
      .execute();
    await db.schema
      .createIndex('refresh_tokens_client_id')
      .on('refresh_tokens')
      .column('client_id')
      .execute();
    await db.schema
      .createIndex('refresh_tokens_expires_at')
      .on('refresh_tokens')
      .column('expires_at')
      .execute();

    await db.schema
      .createTable('consents')
      .addColumn('uin', 'bigint', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('scope', 'text')
      .addColumn('granted_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('consents_pk', ['uin', 'client_id'])
      .execute();
    await db.schema.createIndex('consents_client_id').on('consents').column('client_id').execute();

    await db.schema
      .createTable('login_throttles')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('window_start', 'bigint', (c) => c.notNull())
      .addColumn('locked_until', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('signing_keys')
      .addColumn('kid', 'text', (c) => c.primaryKey())
      .addColumn('alg', 'text', (c) => c.notNull())
      .addColumn('private_jwk', 'text', (c) => c.notNull())
      .addColumn('public_jwk', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
