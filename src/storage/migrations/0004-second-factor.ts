import type { Kysely, Migration } from 'kysely';

/**
 * Second factors (docs/interface.md#second-factor): TOTP credentials, passkeys, recovery codes, WebAuthn
 * challenges and pending sign-ins, each in its own table; and the authentication methods (RFC 8176 `amr`,
 * space-separated) carried from the session through the code and refresh token into the id_token.
 */
export const secondFactor: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('totp_credentials')
      .addColumn('uin', 'bigint', (c) => c.primaryKey())
      // AES-256-GCM under the key-encryption key (src/domain/secret-box.ts), never in plain text.
      .addColumn('sealed_secret', 'text', (c) => c.notNull())
      // Null until the user confirmed a first code; an unconfirmed secret is no factor.
      .addColumn('confirmed_at', 'bigint')
      // RFC 6238 §5.2: the last time step accepted, so no code is ever accepted twice.
      .addColumn('last_used_step', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('passkeys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('uin', 'bigint', (c) => c.notNull())
      // WebAuthn credential id and COSE public key, base64url.
      .addColumn('credential_id', 'text', (c) => c.notNull().unique())
      .addColumn('public_key', 'text', (c) => c.notNull())
      .addColumn('counter', 'bigint', (c) => c.notNull())
      .addColumn('transports', 'text', (c) => c.notNull())
      .addColumn('device_type', 'text', (c) => c.notNull())
      .addColumn('backed_up', 'integer', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .execute();
    await db.schema.createIndex('passkeys_uin').on('passkeys').column('uin').execute();

    await db.schema
      .createTable('recovery_codes')
      .addColumn('uin', 'bigint', (c) => c.notNull())
      .addColumn('code_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .addPrimaryKeyConstraint('recovery_codes_pk', ['uin', 'code_hash'])
      .execute();

    await db.schema
      .createTable('webauthn_challenges')
      .addColumn('challenge_hash', 'text', (c) => c.primaryKey())
      .addColumn('purpose', 'text', (c) => c.notNull())
      // The user the ceremony is for; null for a passwordless sign-in, where nobody is known yet.
      .addColumn('uin', 'bigint')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('webauthn_challenges_expires_at')
      .on('webauthn_challenges')
      .column('expires_at')
      .execute();

    await db.schema
      .createTable('pending_sign_ins')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('uin', 'bigint', (c) => c.notNull())
      .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('pending_sign_ins_expires_at')
      .on('pending_sign_ins')
      .column('expires_at')
      .execute();

    // Sessions from before this migration were all password sign-ins.
    await db.schema
      .alterTable('sessions')
      .addColumn('amr', 'text', (c) => c.notNull().defaultTo('pwd'))
      .execute();
    await db.schema.alterTable('authorization_codes').addColumn('amr', 'text').execute();
    await db.schema.alterTable('refresh_tokens').addColumn('amr', 'text').execute();
  },
};
