/**
 * The code redemption, a hot path written by hand per database (docs/architecture.md#batching): the code is
 * marked used and its tokens inserted at once. On PostgreSQL the redemptions of a turn are one statement; on
 * SQLite they share one transaction (turn-batcher.ts). Used by tokens.ts (`Tokens.redeemCode`).
 */
import type { HotPath } from './connection.js';
import { prepareOnFirstUse } from './hot-path-statements.js';
import {
  ACCESS_TOKEN_COLUMNS,
  type AccessTokenRow,
  REFRESH_TOKEN_COLUMNS,
  type RefreshTokenRow,
} from './token-rows.js';
import { TurnBatcher, sqliteTransaction } from './turn-batcher.js';

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

/**
 * REDEEM_CODES' parameters, in REDEEM_INPUTS' order. A batch without a refresh token (no code in it asked for
 * offline_access) passes null for each refresh column rather than an array of nulls: `unnest` reads a null
 * array as empty and fills its column with nulls, and the database parses 13 arrays fewer (a tenth of the
 * redemption's database CPU in batches of 10, measured with the backend's /proc CPU time).
 */
function redemptionArrays(batch: readonly Redemption[]): (unknown[] | null)[] {
  const arrays: (unknown[] | null)[] = [batch.map((r) => r.codeHash), batch.map((r) => r.now)];
  for (const { name } of ACCESS_TOKEN_COLUMNS) arrays.push(batch.map((r) => r.access[name]));
  const anyRefresh = batch.some((r) => r.refresh !== undefined);
  for (const { name } of REFRESH_TOKEN_COLUMNS) {
    arrays.push(anyRefresh ? batch.map((r) => r.refresh?.[name] ?? null) : null);
  }
  return arrays;
}

export const redemption: HotPath<Redeem> = {
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
