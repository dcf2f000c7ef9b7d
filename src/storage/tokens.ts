/**
 * The access_tokens and refresh_tokens tables: their queries (docs/architecture.md#storage); the row mappers
 * and column lists are beside them in token-rows.ts. Two queries are hot paths, written by hand per database:
 * the active-owner look-up (user information, introspection) and the code redemption (the code exchange).
 * On PostgreSQL both are coalesced per turn; on SQLite the redemptions of a turn share one transaction
 * (turn-batcher.ts, docs/architecture.md#batching).
 */
import type { Kysely, Transaction } from 'kysely';
import type { HotPath } from './connection.js';
import {
  Repository,
  batchedLookup,
  changed,
  forDialect,
  prepareOnFirstUse,
  preparedLookup,
} from './connection.js';
import type { Database } from './schema.js';
import type { AccessTokenRecord, ActiveTokenOwner, RefreshTokenRecord, TokenRepository } from './store.js';
import {
  ACCESS_TOKEN_COLUMNS,
  ACTIVE_OWNER_COLUMNS,
  type AccessTokenRow,
  type ActiveTokenOwnerRow,
  REFRESH_TOKEN_COLUMNS,
  type RefreshTokenRow,
  accessTokenRow,
  refreshTokenRow,
  toAccessToken,
  toActiveTokenOwner,
  toRefreshToken,
} from './token-rows.js';
import { TurnBatcher, sqliteTransaction } from './turn-batcher.js';

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
    const lookup = batchedLookup(pool, {
      name: 'campus_sso_find_active_owners',
      text: `
        select q.i, ${ACTIVE_OWNER_COLUMNS}
          from unnest($1::text[], $2::bigint[]) with ordinality as q(token_hash, now, i)
          join access_tokens t on t.token_hash = q.token_hash ${OWNER_JOINS}
         where ${isActiveAt('q.now')}`,
      parameters: (keys: readonly { tokenHash: string; now: number }[]) => [
        keys.map((key) => key.tokenHash),
        keys.map((key) => key.now),
      ],
      map: toActiveTokenOwner,
    });
    return (tokenHash, now) => lookup({ tokenHash, now });
  },
};

/** One code to redeem at `now`, with the rows of the tokens it is redeemed for. */
interface Redemption {
  readonly codeHash: string;
  readonly now: number;
  readonly access: AccessTokenRow;
  readonly refresh: RefreshTokenRow | undefined;
}

type Redeem = (redemption: Redemption) => Promise<boolean>;

/**
 * PostgreSQL: the same code twice in one turn never shares a batch (one statement does not see its own
 * updates), so the second waits, then finds the code used. SQLite needs no such rule: its batch runs the
 * redemptions one after another inside the transaction, so the second already finds the code used.
 */
const oneBatchPerCode = { identity: (redemption: Redemption) => redemption.codeHash };

const names = (columns: readonly { name: string }[], prefix = ''): string =>
  columns.map((column) => prefix + column.name).join(', ');

/**
 * PostgreSQL's redemption of a batch, ONE statement: data-modifying CTEs mark each code used (only if it was
 * unused) and insert the tokens of the codes so marked, so the batch is atomic without a transaction. Its
 * parameters are one array per input column: the code, the time, each access-token column (`a_…`), then each
 * refresh-token column (`r_…`, null where none); it answers the positions (`i`) redeemed.
 */
const REDEEM_INPUTS = [
  { name: 'code_hash', pgType: 'text' },
  { name: 'now', pgType: 'bigint' },
  ...ACCESS_TOKEN_COLUMNS.map((column) => ({ name: `a_${column.name}`, pgType: column.pgType })),
  ...REFRESH_TOKEN_COLUMNS.map((column) => ({ name: `r_${column.name}`, pgType: column.pgType })),
];
const REDEEM_CODES = `
  with input as (
    select * from unnest(${REDEEM_INPUTS.map((input, n) => `$${n + 1}::${input.pgType}[]`).join(', ')})
      with ordinality as q(${names(REDEEM_INPUTS)}, i)
  ), used as (
    update authorization_codes c set used_at = input.now
      from input
     where c.code_hash = input.code_hash and c.used_at is null
    returning input.i
  ), access as (
    insert into access_tokens (${names(ACCESS_TOKEN_COLUMNS)})
    select ${names(ACCESS_TOKEN_COLUMNS, 'input.a_')} from input join used on used.i = input.i
  ), refresh as (
    insert into refresh_tokens (${names(REFRESH_TOKEN_COLUMNS)})
    select ${names(REFRESH_TOKEN_COLUMNS, 'input.r_')} from input join used on used.i = input.i
     where input.r_token_hash is not null
  )
  select i from used`;

/** REDEEM_CODES' parameters, in REDEEM_INPUTS' order. */
function redemptionArrays(batch: readonly Redemption[]): unknown[][] {
  const arrays: unknown[][] = [batch.map((r) => r.codeHash), batch.map((r) => r.now)];
  for (const { name } of ACCESS_TOKEN_COLUMNS) arrays.push(batch.map((r) => r.access[name]));
  for (const { name } of REFRESH_TOKEN_COLUMNS) arrays.push(batch.map((r) => r.refresh?.[name] ?? null));
  return arrays;
}

const redemption: HotPath<Redeem> = {
  sqlite(database, gate) {
    const markUsed = prepareOnFirstUse(
      database,
      'update authorization_codes set used_at = ? where code_hash = ? and used_at is null',
    );
    const insertAccess = prepareOnFirstUse(
      database,
      `insert into access_tokens (${names(ACCESS_TOKEN_COLUMNS)}) values (${names(ACCESS_TOKEN_COLUMNS, '@')})`,
    );
    const insertRefresh = prepareOnFirstUse(
      database,
      `insert into refresh_tokens (${names(REFRESH_TOKEN_COLUMNS)}) values (${names(REFRESH_TOKEN_COLUMNS, '@')})`,
    );
    const batcher = new TurnBatcher(
      sqliteTransaction(database, gate, (r: Redemption): boolean => {
        if (markUsed().run(r.now, r.codeHash).changes === 0) return false;
        insertAccess().run(r.access);
        if (r.refresh) insertRefresh().run(r.refresh);
        return true;
      }),
    );
    return (redemption) => batcher.load(redemption);
  },
  postgres(pool) {
    const batcher = new TurnBatcher(async (batch: readonly Redemption[]) => {
      const { rows } = await pool.query<{ i: number }>({
        name: 'campus_sso_redeem_codes',
        text: REDEEM_CODES,
        values: redemptionArrays(batch),
      });
      const redeemed = new Set(rows.map((row) => Number(row.i)));
      return batch.map((_, index) => redeemed.has(index + 1));
    }, oneBatchPerCode);
    return (redemption) => batcher.load(redemption);
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

  async revokeAccessToken(tokenHash: string): Promise<void> {
    await this.db
      .updateTable('access_tokens')
      .set({ revoked: 1 })
      .where('token_hash', '=', tokenHash)
      .execute();
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
