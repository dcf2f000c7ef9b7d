/** The signing_keys table: its queries and its row mapper (docs/architecture.md#storage). */
import type { Selectable } from 'kysely';
import type { Connection } from './connection.js';
import type { Database } from './schema.js';
import type { SigningKeyRecord, SigningKeyRepository } from './store.js';

function toSigningKey(row: Selectable<Database['signing_keys']>): SigningKeyRecord {
  return {
    kid: row.kid,
    alg: row.alg,
    privateJwk: row.private_jwk,
    publicJwk: row.public_jwk,
    createdAt: Number(row.created_at),
  };
}

export class SigningKeys implements SigningKeyRepository {
  private readonly db: Connection['db'];

  constructor(connection: Connection) {
    this.db = connection.db;
  }

  async list(): Promise<SigningKeyRecord[]> {
    const rows = await this.db.selectFrom('signing_keys').selectAll().orderBy('created_at').execute();
    return rows.map(toSigningKey);
  }

  async insert(key: SigningKeyRecord): Promise<void> {
    await this.db
      .insertInto('signing_keys')
      .values({
        kid: key.kid,
        alg: key.alg,
        private_jwk: key.privateJwk,
        public_jwk: key.publicJwk,
        created_at: key.createdAt,
      })
      .onConflict((oc) => oc.column('kid').doNothing())
      .execute();
  }
}
