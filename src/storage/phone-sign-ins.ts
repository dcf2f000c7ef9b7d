/** The phone_sign_ins table: its queries and row mapper (docs/architecture.md#storage). */
import type { Selectable } from 'kysely';
import { Repository, changed, nullableNumber } from './connection.js';
import type { Database } from './schema.js';
import { joinAmr, splitAmr } from './sessions.js';
import type { PhoneSignInRecord, PhoneSignInRepository, PhoneSignInStatus } from './store.js';

type PhoneSignInRow = Selectable<Database['phone_sign_ins']>;

function toPhoneSignIn(row: PhoneSignInRow): PhoneSignInRecord {
  return {
    idHash: row.id_hash,
    secretHash: row.secret_hash,
    number: Number(row.number),
    choices: row.choices.split(',').map(Number),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    status: row.status as PhoneSignInStatus,
    uin: nullableNumber(row.uin),
    amr: splitAmr(row.amr),
    ip: row.ip,
    userAgent: row.user_agent,
  };
}

export class PhoneSignIns extends Repository implements PhoneSignInRepository {
  async insert(request: PhoneSignInRecord): Promise<void> {
    await this.db
      .insertInto('phone_sign_ins')
      .values({
        id_hash: request.idHash,
        secret_hash: request.secretHash,
        number: request.number,
        choices: request.choices.join(','),
        created_at: request.createdAt,
        expires_at: request.expiresAt,
        status: request.status,
        uin: request.uin,
        amr: joinAmr(request.amr),
        ip: request.ip,
        user_agent: request.userAgent,
      })
      .execute();
  }

  findById(idHash: string): Promise<PhoneSignInRecord | undefined> {
    return this.findBy('phone_sign_ins', 'id_hash', idHash, toPhoneSignIn);
  }

  findBySecret(secretHash: string): Promise<PhoneSignInRecord | undefined> {
    return this.findBy('phone_sign_ins', 'secret_hash', secretHash, toPhoneSignIn);
  }

  async approve(idHash: string, uin: number, amr: readonly string[], now: number): Promise<boolean> {
    return changed(
      await this.db
        .updateTable('phone_sign_ins')
        .set({ status: 'approved', uin, amr: joinAmr(amr) })
        .where('id_hash', '=', idHash)
        .where('status', '=', 'pending')
        .where('expires_at', '>', now)
        .executeTakeFirst(),
    );
  }

  async fail(idHash: string): Promise<boolean> {
    return changed(
      await this.db
        .updateTable('phone_sign_ins')
        .set({ status: 'failed' })
        .where('id_hash', '=', idHash)
        .where('status', '=', 'pending')
        .executeTakeFirst(),
    );
  }

  async use(secretHash: string, now: number): Promise<boolean> {
    return changed(
      await this.db
        .updateTable('phone_sign_ins')
        .set({ status: 'used' })
        .where('secret_hash', '=', secretHash)
        .where('status', '=', 'approved')
        .where('expires_at', '>', now)
        .executeTakeFirst(),
    );
  }

  purgeExpired(now: number): Promise<number> {
    return this.deleteExpired('phone_sign_ins', now);
  }
}
