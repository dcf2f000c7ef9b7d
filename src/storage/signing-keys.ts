/** The signing_keys table: its queries (docs/architecture.md#storage). */
import { Repository } from './connection.js';
import type { SigningKeyRecord, SigningKeyRepository } from './store.js';

/** A row selected as a SigningKeyRecord. */
const SIGNING_KEY = [
  'kid',
  'alg',
  'private_jwk as privateJwk',
  'public_jwk as publicJwk',
  'created_at as createdAt',
] as const;

export class SigningKeys extends Repository implements SigningKeyRepository {
  list(): Promise<SigningKeyRecord[]> {
    return this.db.selectFrom('signing_keys').select(SIGNING_KEY).orderBy('created_at').execute();
  }

  async insert(key: SigningKeyRecord): Promise<void> {
    const { kid, alg, privateJwk, publicJwk, createdAt } = key;
    await this.db
      .insertInto('signing_keys')
      .values({ kid, alg, private_jwk: privateJwk, public_jwk: publicJwk, created_at: createdAt })
      .onConflict((oc) => oc.column('kid').doNothing())
      .execute();
  }

  async replacePrivateJwk(kid: string, from: string, to: string): Promise<void> {
    await this.db
      .updateTable('signing_keys')
      .set({ private_jwk: to })
      .where('kid', '=', kid)
      .where('private_jwk', '=', from)
      .execute();
  }
}
