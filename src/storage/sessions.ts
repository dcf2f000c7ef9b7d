/** The sessions table: its queries and its row mapper (docs/architecture.md#storage). */
import type { Selectable } from 'kysely';
import type { Connection } from './connection.js';
import type { Database } from './schema.js';
import type { SessionRecord, SessionRepository } from './store.js';

function toSession(row: Selectable<Database['sessions']>): SessionRecord {
  return {
    idHash: row.id_hash,
    uin: Number(row.uin),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}

export class Sessions implements SessionRepository {
  private readonly db: Connection['db'];

  constructor(connection: Connection) {
    this.db = connection.db;
  }

  async insert(session: SessionRecord): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({
        id_hash: session.idHash,
        uin: session.uin,
        created_at: session.createdAt,
        expires_at: session.expiresAt,
      })
      .execute();
  }

  async findActive(idHash: string, now: number): Promise<SessionRecord | undefined> {
    const row = await this.db
      .selectFrom('sessions')
      .selectAll()
      .where('id_hash', '=', idHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row && toSession(row);
  }

  async delete(idHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
  }

  async deleteForUser(uin: number, keepIdHash?: string): Promise<void> {
    let query = this.db.deleteFrom('sessions').where('uin', '=', uin);
    if (keepIdHash !== undefined) query = query.where('id_hash', '!=', keepIdHash);
    await query.execute();
  }

  /** Deletes the sessions expired at `now`; answers how many. */
  async purgeExpired(now: number): Promise<number> {
    const result = await this.db.deleteFrom('sessions').where('expires_at', '<', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
