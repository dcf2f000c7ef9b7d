/**
 * The second-factor tables: totp_credentials, passkeys, recovery_codes and second_factor_sign_ins; their queries and row mappers
 * (docs/architecture.md#storage). None is on a benchmarked path, so all go through Kysely.
 */
import { sql } from 'kysely';
import { Repository, changed, inserted, nullableNumber, parseList } from './connection.js';
import { columns } from './columns.js';
import type { Row } from './schema.js';
import type { PasskeyRecord, SecondFactorRepository, TotpCredentialRecord } from './store.js';

function toTotp(row: Row<'totp_credentials'>): TotpCredentialRecord {
  return {
    uin: Number(row.uin),
    sealedSecret: row.sealed_secret,
    confirmedAt: nullableNumber(row.confirmed_at),
    lastUsedStep: nullableNumber(row.last_used_step),
    createdAt: Number(row.created_at),
  };
}

function toPasskey(row: Row<'passkeys'>): PasskeyRecord {
  return {
    id: row.id,
    uin: Number(row.uin),
    credentialId: row.credential_id,
    publicKey: row.public_key,
    counter: Number(row.counter),
    transports: parseList(row.transports),
    deviceType: row.device_type === 'multiDevice' ? 'multiDevice' : 'singleDevice',
    backedUp: row.backed_up === 1,
    name: row.name,
    createdAt: Number(row.created_at),
    lastUsedAt: nullableNumber(row.last_used_at),
  };
}

function passkeyRow(passkey: PasskeyRecord): Row<'passkeys'> {
  return columns(passkey);
}

export class SecondFactors extends Repository implements SecondFactorRepository {
  findTotp(uin: number): Promise<TotpCredentialRecord | undefined> {
    return this.findBy('totp_credentials', 'uin', uin, toTotp);
  }

  listTotpSecrets(): Promise<{ uin: number; sealedSecret: string }[]> {
    return this.db
      .selectFrom('totp_credentials')
      .select(['uin', 'sealed_secret as sealedSecret'])
      .orderBy('uin')
      .execute();
  }

  async putUnconfirmedTotp(credential: TotpCredentialRecord): Promise<boolean> {
    const result = await this.db
      .insertInto('totp_credentials')
      .values({
        uin: credential.uin,
        sealed_secret: credential.sealedSecret,
        confirmed_at: null,
        last_used_step: null,
        created_at: credential.createdAt,
      })
      // A confirmed secret stays: it must be removed (with the password) before another is set up.
      .onConflict((oc) =>
        oc
          .column('uin')
          .doUpdateSet({ sealed_secret: credential.sealedSecret, created_at: credential.createdAt })
          .where('totp_credentials.confirmed_at', 'is', null),
      )
      .executeTakeFirst();
    return inserted(result);
  }

  async acceptTotpStep(uin: number, step: number, confirm: { now: number } | undefined): Promise<boolean> {
    // One statement: of two requests with the same code, exactly one moves the step forward.
    let query = this.db
      .updateTable('totp_credentials')
      .set({ last_used_step: step })
      .where('uin', '=', uin)
      .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]));
    query = confirm
      ? query.set({ confirmed_at: confirm.now }).where('confirmed_at', 'is', null)
      : query.where('confirmed_at', 'is not', null);
    return changed(await query.executeTakeFirst());
  }

  async deleteTotp(uin: number): Promise<boolean> {
    return changed(await this.db.deleteFrom('totp_credentials').where('uin', '=', uin).executeTakeFirst());
  }

  listPasskeys(uin: number): Promise<PasskeyRecord[]> {
    return this.listBy('passkeys', 'uin', uin, 'created_at', toPasskey);
  }

  async enrolledKinds(uins: readonly number[]): Promise<Map<number, ('totp' | 'passkey')[]>> {
    const kinds = new Map<number, ('totp' | 'passkey')[]>();
    if (uins.length === 0) return kinds;
    const [totp, passkeys] = await Promise.all([
      this.db
        .selectFrom('totp_credentials')
        .select('uin')
        .where('uin', 'in', [...uins])
        .where('confirmed_at', 'is not', null)
        .execute(),
      this.db
        .selectFrom('passkeys')
        .select('uin')
        .distinct()
        .where('uin', 'in', [...uins])
        .execute(),
    ]);
    const add = (uin: number | string, kind: 'totp' | 'passkey'): void => {
      const list = kinds.get(Number(uin)) ?? [];
      list.push(kind);
      kinds.set(Number(uin), list);
    };
    for (const row of totp) add(row.uin, 'totp');
    for (const row of passkeys) add(row.uin, 'passkey');
    return kinds;
  }

  findPasskey(credentialId: string): Promise<PasskeyRecord | undefined> {
    return this.findBy('passkeys', 'credential_id', credentialId, toPasskey);
  }

  async insertPasskey(passkey: PasskeyRecord): Promise<boolean> {
    const query = this.db.insertInto('passkeys').values(passkeyRow(passkey));
    return inserted(await query.onConflict((oc) => oc.doNothing()).executeTakeFirst());
  }

  async touchPasskey(id: string, counter: number, now: number): Promise<void> {
    await this.db.updateTable('passkeys').set({ counter, last_used_at: now }).where('id', '=', id).execute();
  }

  async deletePasskey(uin: number, id: string): Promise<boolean> {
    const query = this.db.deleteFrom('passkeys').where('uin', '=', uin).where('id', '=', id);
    return changed(await query.executeTakeFirst());
  }

  async replaceRecoveryCodes(uin: number, codeHashes: readonly string[], now: number): Promise<void> {
    await this.atomically(async (trx) => {
      await trx.deleteFrom('recovery_codes').where('uin', '=', uin).execute();
      if (codeHashes.length === 0) return;
      await trx
        .insertInto('recovery_codes')
        .values(codeHashes.map((codeHash) => ({ uin, code_hash: codeHash, created_at: now, used_at: null })))
        .execute();
    });
  }

  async useRecoveryCode(uin: number, codeHashes: readonly string[], now: number): Promise<boolean> {
    if (codeHashes.length === 0) return false;
    // One statement over every stored form of the code, so it is used at most once whichever form matches.
    const query = this.db
      .updateTable('recovery_codes')
      .set({ used_at: now })
      .where('uin', '=', uin)
      .where('code_hash', 'in', [...codeHashes])
      .where('used_at', 'is', null);
    return changed(await query.executeTakeFirst());
  }

  async countUnusedRecoveryCodes(uin: number): Promise<number> {
    const row = await this.db
      .selectFrom('recovery_codes')
      .select(sql<number>`count(*)`.as('count'))
      .where('uin', '=', uin)
      .where('used_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async findSecondFactorSignIn(uin: number): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('second_factor_sign_ins')
      .select('signed_in_at')
      .where('uin', '=', uin)
      .executeTakeFirst();
    return row && Number(row.signed_in_at);
  }

  async recordSecondFactorSignIn(uin: number, at: number): Promise<void> {
    await this.db
      .insertInto('second_factor_sign_ins')
      .values({ uin, signed_in_at: at })
      .onConflict((oc) => oc.column('uin').doUpdateSet({ signed_in_at: at }))
      .execute();
  }

  async deleteFactorsAddedAfter(uin: number, after: number): Promise<{ totp: boolean; passkeys: string[] }> {
    return this.atomically(async (trx) => {
      const passkeys = await trx
        .deleteFrom('passkeys')
        .where('uin', '=', uin)
        .where('created_at', '>', after)
        .returning('id')
        .execute();
      // An unconfirmed secret is no factor; it goes too, so nobody can confirm it later.
      const totp = await trx
        .deleteFrom('totp_credentials')
        .where('uin', '=', uin)
        .where((eb) => eb.or([eb('confirmed_at', 'is', null), eb('confirmed_at', '>', after)]))
        .returning('confirmed_at')
        .execute();
      return { totp: totp.some((row) => row.confirmed_at !== null), passkeys: passkeys.map((row) => row.id) };
    });
  }

  async deleteAll(uin: number): Promise<void> {
    await this.atomically(async (trx) => {
      await trx.deleteFrom('totp_credentials').where('uin', '=', uin).execute();
      await trx.deleteFrom('passkeys').where('uin', '=', uin).execute();
      await trx.deleteFrom('recovery_codes').where('uin', '=', uin).execute();
    });
  }
}
