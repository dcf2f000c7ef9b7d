import type { Kysely, Migration } from 'kysely';
import { LIFETIME, addColumns, createIndexes, createTable } from './schema-helpers.js';

/**
 * campus-sso as a CAS server (docs/interface.md#cas-protocol): the apps' registered CAS service URLs, the
 * service tickets (stored as SHA-256 digests), and a second kind of row in the logout delivery queue, the CAS
 * single-logout `logoutRequest`. Only adds a column set, a table and its indexes, so it applies whether or
 * not other new migrations ran before it.
 */
export const cas: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await addColumns(db, 'apps', [['cas_services', 'text', { notNullDefault: '[]' }]]);

    await createTable(db, 'cas_tickets', [
      ['ticket_hash', 'text', 'primary key'],
      ['client_id', 'text', 'not null'],
      ['service', 'text', 'not null'],
      ['uin', 'bigint', 'not null'],
      ['sid', 'text', 'not null'],
      ['from_new_login', 'integer', { notNullDefault: 0 }],
      ['auth_time', 'bigint', 'not null'],
      // RFC 8176 methods of the sign-in, space-separated (the successfulAuthenticationHandlers attribute).
      ['amr', 'text', { notNullDefault: '' }],
      ...LIFETIME,
      ['used_at', 'bigint'],
      ['validated_at', 'bigint'],
      // The validated ticket, sealed under the key-encryption key: the SessionIndex of its logoutRequest.
      ['sealed_ticket', 'text'],
    ]);
    await createIndexes(db, 'cas_tickets', {
      cas_tickets_sid: ['sid'],
      cas_tickets_expires_at: ['expires_at'],
    });

    await addColumns(db, 'logout_deliveries', [
      ['kind', 'text', { notNullDefault: 'backchannel' }],
      ['cas_service', 'text'],
      ['cas_ticket', 'text'],
    ]);
  },
};
