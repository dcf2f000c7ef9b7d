/** The consents table: its queries (docs/architecture.md#storage). */
import { Repository, changed } from './connection.js';
import type { ConsentRecord, ConsentRepository, ConsentWithApp } from './store.js';

/** A row of `consents c` selected as a ConsentRecord. */
const CONSENT = ['c.uin', 'c.client_id as clientId', 'c.scope', 'c.granted_at as grantedAt'] as const;

export class Consents extends Repository implements ConsentRepository {
  find(uin: number, clientId: string): Promise<ConsentRecord | undefined> {
    return this.ofUser(uin).where('c.client_id', '=', clientId).executeTakeFirst();
  }

  async upsert(consent: ConsentRecord): Promise<void> {
    const { uin, clientId, scope, grantedAt } = consent;
    await this.db
      .insertInto('consents')
      .values({ uin, client_id: clientId, scope, granted_at: grantedAt })
      .onConflict((oc) => oc.columns(['uin', 'client_id']).doUpdateSet({ scope, granted_at: grantedAt }))
      .execute();
  }

  async delete(uin: number, clientId: string): Promise<boolean> {
    const query = this.db.deleteFrom('consents').where('uin', '=', uin).where('client_id', '=', clientId);
    return changed(await query.executeTakeFirst());
  }

  listForUser(uin: number): Promise<ConsentWithApp[]> {
    return this.ofUser(uin)
      .innerJoin('apps as a', 'a.client_id', 'c.client_id')
      .select(['a.name', 'a.emoji'])
      .orderBy('c.granted_at', 'desc')
      .execute();
  }

  /** The user's consents, selected as ConsentRecords. */
  private ofUser(uin: number) {
    return this.db.selectFrom('consents as c').select(CONSENT).where('c.uin', '=', uin);
  }
}
