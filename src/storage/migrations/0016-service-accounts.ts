import type { Kysely, Migration } from 'kysely';
import { LIFETIME, addColumns, createIndexes, createTable } from './schema-helpers.js';

/**
 * Service accounts (RFC 6749 §4.4; docs/interface.md#service-accounts-client-credentials): a per-app switch
 * and the scopes its tokens may carry, and the tokens issued to an app for itself, without a user. Those live
 * in a table of their own, never in access_tokens, so no query about a user's tokens (user information,
 * sign-out, consents) can ever find one. It only adds (two columns to apps, which every schema has had since
 * 0001, and a table of its own), so it runs the same whether or not other migrations ran before it. Same SQL
 * on SQLite and PostgreSQL (0/1 integers, epoch-ms bigints, JSON text).
 */
export const serviceAccounts: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await addColumns(db, 'apps', [
      ['client_credentials', 'integer', { notNullDefault: 0 }],
      ['allowed_scopes', 'text', { notNullDefault: '[]' }],
    ]);
    await createTable(db, 'service_tokens', [
      // credentialKey (src/oauth/credentials.ts) of the access token: never the token itself.
      ['token_hash', 'text', 'primary key'],
      ['client_id', 'text', 'not null'],
      // The granted scope, space-separated (RFC 6749 §3.3); never empty.
      ['scope', 'text', 'not null'],
      ...LIFETIME,
      ['revoked', 'integer', { notNullDefault: 0 }],
    ]);
    await createIndexes(db, 'service_tokens', {
      service_tokens_client_id: ['client_id'],
      service_tokens_expires_at: ['expires_at'],
    });
  },
};
