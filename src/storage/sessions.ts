/** The sessions table: its queries (docs/architecture.md#storage). */
import { Repository } from './connection.js';
import type { SessionRecord, SessionRepository } from './store.js';

/** A row selected as a SessionRecord. */
const SESSION = ['id_hash as idHash', 'uin', 'created_at as createdAt', 'expires_at as expiresAt'] as const;

export class Sessions extends Repository implements SessionRepository {
  async insert(session: SessionRecord): Promise<void> {
    const { idHash, uin, createdAt, expiresAt } = session;
    await this.db
      .insertInto('sessions')
      .values({ id_hash: idHash, uin, created_at: createdAt, expires_at: expiresAt })
      .execute();
  }

  findActive(idHash: string, now: number): Promise<SessionRecord | undefined> {
    return this.db
      .selectFrom('sessions')
      .select(SESSION)
      .where('id_hash', '=', idHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
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
