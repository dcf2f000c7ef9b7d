/**
 * The service_tokens table (0016-service-accounts): its queries and row mapper (docs/architecture.md#storage).
 * Not a hot path: a service job asks for a token and uses it for many calls, so these are Kysely queries.
 */
import { columns } from './columns.js';
import { Repository, parseList } from './connection.js';
import type { Row } from './schema.js';
import type {
  ActiveServiceToken,
  ServiceTokenRecord,
  ServiceTokenRepository,
} from './service-token-records.js';

/** What a token grants, without its state: `find` answers it with `revoked`, `findActive` without. */
function toGrant(row: Omit<Row<'service_tokens'>, 'revoked'>): ActiveServiceToken['token'] {
  return {
    tokenHash: row.token_hash,
    clientId: row.client_id,
    scope: row.scope,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}

function toServiceToken(row: Row<'service_tokens'>): ServiceTokenRecord {
  return { ...toGrant(row), revoked: row.revoked === 1 };
}

function serviceTokenRow(token: ServiceTokenRecord): Row<'service_tokens'> {
  return columns(token);
}

export class ServiceTokens extends Repository implements ServiceTokenRepository {
  async insert(token: ServiceTokenRecord): Promise<void> {
    await this.db.insertInto('service_tokens').values(serviceTokenRow(token)).execute();
  }

  find(tokenHash: string): Promise<ServiceTokenRecord | undefined> {
    return this.findBy('service_tokens', 'token_hash', tokenHash, toServiceToken);
  }

  async findActive(tokenHash: string, now: number): Promise<ActiveServiceToken | undefined> {
    const row = await this.db
      .selectFrom('service_tokens as t')
      .innerJoin('apps as a', 'a.client_id', 't.client_id')
      .select(['t.token_hash', 't.client_id', 't.scope', 't.created_at', 't.expires_at', 'a.allowed_scopes'])
      .where('t.token_hash', '=', tokenHash)
      .where('t.revoked', '=', 0)
      .where('t.expires_at', '>', now)
      .where('a.disabled', '=', 0)
      .where('a.client_credentials', '=', 1)
      .executeTakeFirst();
    if (!row) return undefined;
    return { token: toGrant(row), allowedScopes: parseList(row.allowed_scopes) };
  }

  revoke(tokenHash: string): Promise<void> {
    return this.updateBy('service_tokens', 'token_hash', tokenHash, { revoked: 1 });
  }

  async revokeForApp(clientId: string): Promise<void> {
    await this.db
      .updateTable('service_tokens')
      .set({ revoked: 1 })
      .where('client_id', '=', clientId)
      .where('revoked', '=', 0)
      .execute();
  }

  purgeExpired(now: number): Promise<number> {
    return this.deleteExpired('service_tokens', now);
  }
}
