/** The pending_sign_ins table: its queries (docs/architecture.md#storage). */
import { sql } from 'kysely';
import { Repository, bit, changed } from './connection.js';
import type { PendingSignInRecord, PendingSignInRepository } from './store.js';

export class PendingSignIns extends Repository implements PendingSignInRepository {
  async insert(pending: PendingSignInRecord): Promise<void> {
    const { idHash, uin, failures, createdAt, expiresAt, shared } = pending;
    await this.db
      .insertInto('pending_sign_ins')
      .values({
        id_hash: idHash,
        uin,
        failures,
        created_at: createdAt,
        expires_at: expiresAt,
        shared: bit(shared),
      })
      .execute();
  }

  async findActive(idHash: string, now: number): Promise<PendingSignInRecord | undefined> {
    const row = await this.db
      .selectFrom('pending_sign_ins')
      .selectAll()
      .where('id_hash', '=', idHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return (
      row && {
        idHash: row.id_hash,
        uin: Number(row.uin),
        failures: Number(row.failures),
        createdAt: Number(row.created_at),
        expiresAt: Number(row.expires_at),
        shared: row.shared === 1,
      }
    );
  }

  async fail(idHash: string): Promise<number | undefined> {
    // One statement, so simultaneous wrong answers are each counted.
    const row = await this.db
      .updateTable('pending_sign_ins')
      .set({ failures: sql<number>`failures + 1` })
      .where('id_hash', '=', idHash)
      .returning('failures')
      .executeTakeFirst();
    return row && Number(row.failures);
  }

  async delete(idHash: string): Promise<boolean> {
    return changed(
      await this.db.deleteFrom('pending_sign_ins').where('id_hash', '=', idHash).executeTakeFirst(),
    );
  }

  purgeExpired(now: number): Promise<number> {
    return this.deleteExpired('pending_sign_ins', now);
  }
}
