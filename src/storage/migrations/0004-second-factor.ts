import type { Kysely, Migration } from 'kysely';
import { LIFETIME, addColumns, createIndexes, createTable } from './schema-helpers.js';

/**
 * Second factors (docs/interface.md#second-factor): TOTP credentials, passkeys, recovery codes, WebAuthn
 * challenges and pending sign-ins, each in its own table; and the authentication methods (RFC 8176 `amr`,
 * space-separated) carried from the session through the code and refresh token into the id_token.
 */
export const secondFactor: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await createTable(db, 'totp_credentials', [
      ['uin', 'bigint', 'primary key'],
      // AES-256-GCM under the key-encryption key (src/domain/secret-box.ts), never in plain text.
      ['sealed_secret', 'text', 'not null'],
      // Null until the user confirmed a first code; an unconfirmed secret is no factor.
      ['confirmed_at', 'bigint'],
      // RFC 6238 §5.2: the last time step accepted, so no code is ever accepted twice.
      ['last_used_step', 'bigint'],
      ['created_at', 'bigint', 'not null'],
    ]);

    await createTable(db, 'passkeys', [
      ['id', 'text', 'primary key'],
      ['uin', 'bigint', 'not null'],
      // WebAuthn credential id and COSE public key, base64url.
      ['credential_id', 'text', 'not null unique'],
      ['public_key', 'text', 'not null'],
      ['counter', 'bigint', 'not null'],
      ['transports', 'text', 'not null'],
      ['device_type', 'text', 'not null'],
      ['backed_up', 'integer', 'not null'],
      ['name', 'text', 'not null'],
      ['created_at', 'bigint', 'not null'],
      ['last_used_at', 'bigint'],
    ]);
    await createIndexes(db, 'passkeys', { passkeys_uin: ['uin'] });

    await createTable(
      db,
      'recovery_codes',
      [
        ['uin', 'bigint', 'not null'],
        ['code_hash', 'text', 'not null'],
        ['created_at', 'bigint', 'not null'],
        ['used_at', 'bigint'],
      ],
      { primaryKey: ['uin', 'code_hash'] },
    );

    await createTable(db, 'webauthn_challenges', [
      ['challenge_hash', 'text', 'primary key'],
      ['purpose', 'text', 'not null'],
      // The user the ceremony is for; null for a passwordless sign-in, where nobody is known yet.
      ['uin', 'bigint'],
      ['expires_at', 'bigint', 'not null'],
    ]);
    await createIndexes(db, 'webauthn_challenges', { webauthn_challenges_expires_at: ['expires_at'] });

    await createTable(db, 'pending_sign_ins', [
      ['id_hash', 'text', 'primary key'],
      ['uin', 'bigint', 'not null'],
      ['failures', 'integer', { notNullDefault: 0 }],
      ...LIFETIME,
    ]);
    await createIndexes(db, 'pending_sign_ins', { pending_sign_ins_expires_at: ['expires_at'] });

    // Sessions from before this migration were all password sign-ins.
    await addColumns(db, 'sessions', [['amr', 'text', { notNullDefault: 'pwd' }]]);
    await addColumns(db, 'authorization_codes', [['amr', 'text']]);
    await addColumns(db, 'refresh_tokens', [['amr', 'text']]);
  },
};
