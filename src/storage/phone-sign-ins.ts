/** The phone_sign_ins table: its queries and row mapper (docs/architecture.md#storage). */
import { toApprovalRequest } from './approval-request-rows.js';
import { columns } from './columns.js';
import { Repository } from './connection.js';
import type { Row } from './schema.js';
import { joinAmr, splitAmr } from './sessions.js';
import type { PhoneSignInRecord, PhoneSignInRepository } from './store.js';

function toPhoneSignIn(row: Row<'phone_sign_ins'>): PhoneSignInRecord {
  return {
    idHash: row.id_hash,
    secretHash: row.secret_hash,
    number: Number(row.number),
    choices: row.choices.split(',').map(Number),
    amr: splitAmr(row.amr),
    ...toApprovalRequest<PhoneSignInRecord>(row),
  };
}

function phoneSignInRow(request: PhoneSignInRecord): Row<'phone_sign_ins'> {
  const { choices, amr, ...fields } = request;
  return { ...columns(fields), choices: choices.join(','), amr: joinAmr(amr) };
}

export class PhoneSignIns extends Repository implements PhoneSignInRepository {
  async insert(request: PhoneSignInRecord): Promise<void> {
    await this.db.insertInto('phone_sign_ins').values(phoneSignInRow(request)).execute();
  }

  findById(idHash: string): Promise<PhoneSignInRecord | undefined> {
    return this.findBy('phone_sign_ins', 'id_hash', idHash, toPhoneSignIn);
  }

  findBySecret(secretHash: string): Promise<PhoneSignInRecord | undefined> {
    return this.findBy('phone_sign_ins', 'secret_hash', secretHash, toPhoneSignIn);
  }

  approve(idHash: string, uin: number, amr: readonly string[], now: number): Promise<boolean> {
    const changes = { status: 'approved', uin, amr: joinAmr(amr) };
    return this.moveRequest('phone_sign_ins', 'id_hash', idHash, 'pending', changes, now);
  }

  fail(idHash: string): Promise<boolean> {
    return this.moveRequest('phone_sign_ins', 'id_hash', idHash, 'pending', { status: 'failed' });
  }

  use(secretHash: string, now: number): Promise<boolean> {
    return this.moveRequest('phone_sign_ins', 'secret_hash', secretHash, 'approved', { status: 'used' }, now);
  }

  purgeExpired(now: number): Promise<number> {
    return this.deleteExpired('phone_sign_ins', now);
  }
}
