import type { Kysely, Migration } from 'kysely';
import { LIFETIME, addColumns, createIndexes, createTable } from './schema-helpers.js';

/**
 * The Device Authorization Grant (RFC 8628; docs/interface.md#device-authorization-grant): a per-app switch,
 * and the device requests waiting for a user's decision; and "Sign in with your phone"
 * (docs/interface.md#sign-in-with-your-phone): a lab computer's request that a signed-in phone approves. It only adds (a column to apps, which every schema
 * has had since 0001, and two tables of its own), so it runs the same whether or not other migrations ran
 * before it. Same SQL on SQLite and PostgreSQL (0/1 integers, epoch-ms bigints).
 */
export const deviceGrant: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await addColumns(db, 'apps', [['device_grant', 'integer', { notNullDefault: 0 }]]);
    await createTable(db, 'device_authorizations', [
      // credentialKey (src/oauth/credentials.ts) of the device_code: also the key of the code row an approval adds.
      ['device_code_hash', 'text', 'primary key'],
      // SHA-256 hex of the normalized user code (8 letters, no dash).
      ['user_code_hash', 'text', 'not null unique'],
      ['client_id', 'text', 'not null'],
      ['scope', 'text'],
      ...LIFETIME,
      // RFC 8628 §3.5: the polling interval in seconds, grown by slow_down.
      ['interval_s', 'integer', 'not null'],
      ['last_polled_at', 'bigint'],
      // pending | approved | denied
      ['status', 'text', 'not null'],
      ['uin', 'bigint'],
      ['decided_at', 'bigint'],
      // The device's request, shown to the user who is asked to approve it.
      ['ip', 'text'],
      ['user_agent', 'text'],
    ]);
    await createIndexes(db, 'device_authorizations', {
      device_authorizations_expires_at: ['expires_at'],
    });
    await createTable(db, 'phone_sign_ins', [
      // SHA-256 hex of the public id the QR code carries.
      ['id_hash', 'text', 'primary key'],
      // SHA-256 hex of the secret only the computer holds (its cookie).
      ['secret_hash', 'text', 'not null unique'],
      // The two-digit number the computer shows, and the three the phone offers (comma-separated).
      ['number', 'integer', 'not null'],
      ['choices', 'text', 'not null'],
      ...LIFETIME,
      // pending | approved | failed | used
      ['status', 'text', 'not null'],
      ['uin', 'bigint'],
      ['amr', 'text'],
      ['ip', 'text'],
      ['user_agent', 'text'],
    ]);
    await createIndexes(db, 'phone_sign_ins', { phone_sign_ins_expires_at: ['expires_at'] });
  },
};
