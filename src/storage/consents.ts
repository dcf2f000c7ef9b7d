/** The consents table: its queries and its row mappers (docs/architecture.md#storage). */
import type { Selectable } from 'kysely';
import { type Connection, changed } from './connection.js';
import type { Database } from './schema.js';
import type { ConsentRecord, ConsentRepository, ConsentWithApp } from './store.js';

function toConsent(row: Selectable<Database['consents']>): ConsentRecord {
  return {
    uin: Number(row.uin),
    clientId: row.client_id,
    scope: row.scope,
    grantedAt: Number(row.granted_at),
  };
}

export class Consents implements ConsentRepository {
  private readonly db: Connection['db'];

  constructor(connection: Connection) {
    this.db = connection.db;
  }

  async find(uin: number, clientId: string): Promise<ConsentRecord | undefined> {
    const row = await this.db
      .selectFrom('consents')
      .selectAll()
      .where('uin', '=', uin)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return row && toConsent(row);
  }

  async upsert(consent: ConsentRecord): Promise<void> {
    await this.db
      .insertInto('consents')
      .values({
        uin: consent.uin,
        client_id: consent.clientId,
        scope: consent.scope,
        granted_at: consent.grantedAt,
      })
      .onConflict((oc) =>
        oc.columns(['uin', 'client_id']).doUpdateSet({ scope: consent.scope, granted_at: consent.grantedAt }),
      )
      .execute();
  }

  async delete(uin: number, clientId: string): Promise<boolean> {
    return changed(
      await this.db
        .deleteFrom('consents')
        .where('uin', '=', uin)
        .where('client_id', '=', clientId)
        .executeTakeFirst(),
    );
  }

  async listForUser(uin: number): Promise<ConsentWithApp[]> {
    const rows = await this.db
      .selectFrom('consents as c')
      .innerJoin('apps as a', 'a.client_id', 'c.client_id')
      .select(['c.uin', 'c.client_id', 'c.scope', 'c.granted_at', 'a.name', 'a.emoji'])
      .where('c.uin', '=', uin)
      .orderBy('c.granted_at', 'desc')
      .execute();
    return rows.map((row) => ({ ...toConsent(row), name: row.name, emoji: row.emoji }));
  }
}
