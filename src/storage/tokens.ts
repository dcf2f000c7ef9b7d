/**
 * The access_tokens and refresh_tokens tables: their queries (docs/architecture.md#storage); the row mappers
 * and column lists are beside them in token-rows.ts. Two queries are hot paths, written by hand per database:
 * the active-owner look-up (user information, introspection) and the code redemption (the code exchange).
 * On PostgreSQL both are coalesced per turn; on SQLite the redemptions of a turn share one transaction
 * (turn-batcher.ts, docs/architecture.md#batching).
 */
import type { Kysely, Transaction } from 'kysely';
import type { HotPath } from './connection.js';
import { Repository, changed, forDialect } from './connection.js';
import { batchedLookup, preparedLookup } from './hot-path-statements.js';
import type { Database } from './schema.js';
import type { AccessTokenRecord, ActiveTokenOwner, RefreshTokenRecord, TokenRepository } from './store.js';
import {
  ACTIVE_OWNER_COLUMNS,
  type ActiveTokenOwnerRow,
  accessTokenRow,
  refreshTokenRow,
  toAccessToken,
  toActiveTokenOwner,
  toRefreshToken,
} from './token-rows.js';
import { redemption } from './code-redemption.js';

/** The joins and conditions that make a token active, over `access_tokens t`; `now` is a parameter. */
const OWNER_JOINS = 'join users u on u.uin = t.uin join apps a on a.client_id = t.client_id';
/** An expired account acts as disabled (docs/interface.md#people-groups-and-audit). */
const isActiveAt = (now: string): string =>
  `t.revoked = 0 and t.expires_at > ${now} and u.disabled = 0 and a.disabled = 0
   and (u.expires_at is null or u.expires_at > ${now})`;

type FindActiveOwner = (tokenHash: string, now: number) => Promise<ActiveTokenOwner | undefined>;

const activeOwner: HotPath<FindActiveOwner> = {
  sqlite(database) {
    const find = preparedLookup<[string, number, number], ActiveTokenOwnerRow, ActiveTokenOwner | undefined>(
      database,
      `select ${ACTIVE_OWNER_COLUMNS} from access_tokens t ${OWNER_JOINS}
        where t.token_hash = ? and ${isActiveAt('?')}`,
      toActiveTokenOwner,
    );
    // `now` twice: the token's expiry and the account's.
    return (tokenHash, now) => find(tokenHash, now, now);
  },
  postgres(pool) {
    // Many tokens, each checked at its own `now`.
    return batchedLookup(pool, {
      name: 'campus_sso_find_active_owners',
      text: `
        select q.i, ${ACTIVE_OWNER_COLUMNS}
          from unnest($1::text[], $2::bigint[]) with ordinality as q(token_hash, now, i)
          join access_tokens t on t.token_hash = q.token_hash ${OWNER_JOINS}
         where ${isActiveAt('q.now')}`,
      map: toActiveTokenOwner,
    });
  },
};

type Db = Kysely<Database> | Transaction<Database>;

/** RFC 9700 §4.14.2: every refresh and access token of the family. */
async function revokeFamily(db: Db, familyId: string): Promise<void> {
  await db.updateTable('refresh_tokens').set({ revoked: 1 }).where('family_id', '=', familyId).execute();
  await db.updateTable('access_tokens').set({ revoked: 1 }).where('family_id', '=', familyId).execute();
}

export class Tokens extends Repository implements TokenRepository {
  /** By activeOwner's statement for this database. */
  readonly findActiveOwner = forDialect(this.connection, activeOwner);
  /** By redemption's statements for this database; see redeemCode. */
  private readonly redeem = forDialect(this.connection, redemption);

  redeemCode(
    codeHash: string,
    now: number,
    accessToken: AccessTokenRecord,
    refreshToken: RefreshTokenRecord | undefined,
  ): Promise<boolean> {
    return this.redeem({
      codeHash,
      now,
      access: accessTokenRow(accessToken),
      refresh: refreshToken ? refreshTokenRow(refreshToken) : undefined,
    });
  }

  async revokeByCode(codeHash: string): Promise<void> {
    await this.atomically(async (trx) => {
      await trx.updateTable('access_tokens').set({ revoked: 1 }).where('code_hash', '=', codeHash).execute();
      const families = await trx
        .selectFrom('refresh_tokens')
        .select('family_id')
        .where('code_hash', '=', codeHash)
        .execute();
      for (const { family_id } of families) await revokeFamily(trx, family_id);
    });
  }

  findAccessToken(tokenHash: string): Promise<AccessTokenRecord | undefined> {
    return this.findBy('access_tokens', 'token_hash', tokenHash, toAccessToken);
  }

  revokeAccessToken(tokenHash: string): Promise<void> {
    return this.updateBy('access_tokens', 'token_hash', tokenHash, { revoked: 1 });
  }

  findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | undefined> {
    return this.findBy('refresh_tokens', 'token_hash', tokenHash, toRefreshToken);
  }

  async rotateRefreshToken(
    oldHash: string,
    now: number,
    accessToken: AccessTokenRecord,
    refreshToken: RefreshTokenRecord,
  ): Promise<boolean> {
    return this.atomically(async (trx) => {
      const marked = await trx
        .updateTable('refresh_tokens')
        .set({ rotated_at: now })
        .where('token_hash', '=', oldHash)
        .where('rotated_at', 'is', null)
        .where('revoked', '=', 0)
        .executeTakeFirst();
      if (!changed(marked)) return false;
      await trx.insertInto('access_tokens').values(accessTokenRow(accessToken)).execute();
      await trx.insertInto('refresh_tokens').values(refreshTokenRow(refreshToken)).execute();
      return true;
    });
  }

  async revokeFamily(familyId: string): Promise<void> {
    await this.atomically((trx) => revokeFamily(trx, familyId));
  }

  async revokeForUserAndApp(uin: number, clientId: string): Promise<void> {
    await this.revokeWhere(['access_tokens', 'refresh_tokens'], { uin, client_id: clientId });
  }

  async revokeAllForUser(uin: number): Promise<void> {
    await this.revokeWhere(['access_tokens', 'refresh_tokens'], { uin });
  }

  async revokeForApp(clientId: string): Promise<void> {
    await this.revokeWhere(['access_tokens', 'refresh_tokens'], { client_id: clientId });
  }

  async revokeRefreshForApp(clientId: string): Promise<void> {
    await this.revokeWhere(['refresh_tokens'], { client_id: clientId });
  }

  async listHolders(clientId: string, now: number): Promise<number[]> {
    const live = (table: 'access_tokens' | 'refresh_tokens') =>
      this.db
        .selectFrom(table)
        .select('uin')
        .where('client_id', '=', clientId)
        .where('revoked', '=', 0)
        .where('expires_at', '>', now);
    const rows = await live('access_tokens')
      .union(live('refresh_tokens'))
      .union(
        this.db
          .selectFrom('authorization_codes')
          .select('uin')
          .where('client_id', '=', clientId)
          .where('used_at', 'is', null)
          .where('expires_at', '>', now),
      )
      .execute();
    return rows.map((row) => Number(row.uin));
  }

  /** Revokes the unrevoked rows of `tables` that match `match`, in one transaction (indexed columns). */
  private async revokeWhere(
    tables: readonly ('access_tokens' | 'refresh_tokens')[],
    match: { readonly uin?: number; readonly client_id?: string },
  ): Promise<void> {
    await this.atomically(async (trx) => {
      for (const table of tables) {
        let query = trx.updateTable(table).set({ revoked: 1 }).where('revoked', '=', 0);
        if (match.uin !== undefined) query = query.where('uin', '=', match.uin);
        if (match.client_id !== undefined) query = query.where('client_id', '=', match.client_id);
        await query.execute();
      }
    });
  }

  /** Deletes the access and refresh tokens expired at `now`; answers how many of each. */
  async purgeExpired(now: number): Promise<{ accessTokens: number; refreshTokens: number }> {
    const accessTokens = await this.deleteExpired('access_tokens', now);
    return { accessTokens, refreshTokens: await this.deleteExpired('refresh_tokens', now) };
  }
}
