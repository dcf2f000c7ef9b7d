/** The reset_codes table: its queries (docs/architecture.md#storage). */
import { Repository, changed } from './connection.js';
import type { ResetCodeRecord, ResetCodeRepository } from './store.js';

export class ResetCodes extends Repository implements ResetCodeRepository {
  async put(code: ResetCodeRecord): Promise<void> {
    const row = {
      uin: code.uin,
      code_hash: code.codeHash,
      created_at: code.createdAt,
      expires_at: code.expiresAt,
    };
    await this.db
      .insertInto('reset_codes')
      .values(row)
      .onConflict((oc) =>
        oc.column('uin').doUpdateSet({
          code_hash: row.code_hash,
          created_at: row.created_at,
          expires_at: row.expires_at,
        }),
      )
      .execute();
  }

  async take(uin: number, codeHash: string, now: number): Promise<boolean> {
    // One DELETE decides: of two concurrent redemptions, only one deletes the row.
    return changed(
      await this.db
        .deleteFrom('reset_codes')
        .where('uin', '=', uin)
        .where('code_hash', '=', codeHash)
        .where('expires_at', '>', now)
        .executeTakeFirst(),
    );
  }

  /** Deletes the codes expired at `now`; answers how many. */
  async purgeExpired(now: number): Promise<number> {
    const result = await this.db.deleteFrom('reset_codes').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
