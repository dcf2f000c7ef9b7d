/** The sessions table: its queries (docs/architecture.md#storage). */
import { Repository } from './connection.js';
import type { SessionRecord, SessionRepository } from './store.js';

/** `amr` is stored space-separated (RFC 8176 values contain no spaces); null stays null. */
export function splitAmr(stored: string | null): string[] | null {
  return stored === null ? null : stored.split(' ').filter((method) => method !== '');
}

export function joinAmr(amr: readonly string[] | null): string | null {
  return amr === null ? null : amr.join(' ');
}

/** A row selected as a SessionRecord. */
const SESSION = [
  'id_hash as idHash',
  'uin',
  'created_at as createdAt',
  'expires_at as expiresAt',
  'amr',
] as const;

export class Sessions extends Repository implements SessionRepository {
  async insert(session: SessionRecord): Promise<void> {
    const { idHash, uin, createdAt, expiresAt, amr } = session;
    await this.db
      .insertInto('sessions')
      .values({ id_hash: idHash, uin, created_at: createdAt, expires_at: expiresAt, amr: amr.join(' ') })
      .execute();
  }

  async findActive(idHash: string, now: number): Promise<SessionRecord | undefined> {
    const row = await this.db
      .selectFrom('sessions')
      .select(SESSION)
      .where('id_hash', '=', idHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row && { ...row, amr: splitAmr(row.amr) ?? [] };
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
