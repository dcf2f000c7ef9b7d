/**
 * PostgreSQL versions of the benchmarked queries as named prepared statements on the pool (parsed and planned
 * once per connection), skipping the query builder.
 *
 * The hot look-ups (client, code, token owner) are coalesced: every look-up of one kind that arrives in one
 * turn of the event loop is answered by one query over `unnest($1) with ordinality` (turn-batcher.ts), since
 * the round trip, not the query, is what costs. The redemptions of a turn are likewise ONE statement —
 * data-modifying CTEs mark each code used and insert its tokens only if it was unused — so they are atomic
 * without an explicit transaction, and a code sent twice in one turn goes into two statements.
 */
import type { Kysely, Selectable } from 'kysely';
import type pg from 'pg';
import {
  Apps,
  Codes,
  Tokens,
  Users,
  type ActiveTokenOwnerRow,
  type CodeWithGrantorRow,
  accessTokenRow,
  refreshTokenRow,
  toActiveTokenOwner,
  toApp,
  toCodeWithGrantor,
  toUser,
} from './kysely-store.js';
import type { Database } from './schema.js';
import { TurnBatcher } from './turn-batcher.js';
import type {
  AccessTokenRecord,
  ActiveTokenOwner,
  AppRecord,
  CodeWithGrantor,
  RefreshTokenRecord,
  UserRecord,
} from './store.js';

/** A batched query's rows carry `i`, the 1-based position of the key they answer. */
type Numbered<R> = R & { i: number };

interface BatchedLookup<K, R, V> {
  /** The prepared statement's name. */
  readonly name: string;
  /** A query over `unnest($1, …) with ordinality as q(…, i)` whose rows carry `q.i`. */
  readonly text: string;
  /** The statement's parameters: one array per key column. */
  readonly parameters: (keys: readonly K[]) => unknown[];
  readonly map: (row: R) => V;
}

/**
 * A look-up coalesced per turn: each key is answered by the mapped row numbered with its position, or
 * undefined when none matched.
 */
function batchedLookup<K, R, V>(
  pool: pg.Pool,
  lookup: BatchedLookup<K, R, V>,
): TurnBatcher<K, V | undefined> {
  return new TurnBatcher(async (keys) => {
    const { rows } = await pool.query<Numbered<R>>({
      name: lookup.name,
      text: lookup.text,
      values: lookup.parameters(keys),
    });
    const values = new Array<V | undefined>(keys.length).fill(undefined);
    for (const row of rows) values[Number(row.i) - 1] = lookup.map(row);
    return values;
  });
}

export class PostgresUsers extends Users {
  constructor(
    db: Kysely<Database>,
    private readonly pool: pg.Pool,
  ) {
    super(db);
  }

  override async find(uin: number): Promise<UserRecord | undefined> {
    const { rows } = await this.pool.query<Selectable<Database['users']>>({
      name: 'campus_sso_find_user',
      text: 'select * from users where uin = $1',
      values: [uin],
    });
    return rows[0] && toUser(rows[0]);
  }
}

const FIND_APPS = `
  select q.i, a.*
    from unnest($1::text[]) with ordinality as q(client_id, i)
    join apps a on a.client_id = q.client_id`;

export class PostgresApps extends Apps {
  private readonly batch: TurnBatcher<string, AppRecord | undefined>;

  constructor(db: Kysely<Database>, pool: pg.Pool) {
    super(db);
    this.batch = batchedLookup(pool, {
      name: 'campus_sso_find_apps',
      text: FIND_APPS,
      parameters: (clientIds: readonly string[]) => [clientIds],
      map: (row: Selectable<Database['apps']>) => toApp(row),
    });
  }

  override find(clientId: string): Promise<AppRecord | undefined> {
    return this.batch.load(clientId);
  }
}

const FIND_CODES_WITH_GRANTOR = `
  select q.i, c.*, u.password_hash as user_password_hash, u.user_group, u.created_at as user_created_at,
         u.disabled as user_disabled
    from unnest($1::text[]) with ordinality as q(code_hash, i)
    join authorization_codes c on c.code_hash = q.code_hash
    left join users u on u.uin = c.uin`;

export class PostgresCodes extends Codes {
  private readonly batch: TurnBatcher<string, CodeWithGrantor | undefined>;

  constructor(db: Kysely<Database>, pool: pg.Pool) {
    super(db);
    this.batch = batchedLookup(pool, {
      name: 'campus_sso_find_codes_with_grantor',
      text: FIND_CODES_WITH_GRANTOR,
      parameters: (codeHashes: readonly string[]) => [codeHashes],
      map: (row: CodeWithGrantorRow) => toCodeWithGrantor(row),
    });
  }

  override findWithGrantor(codeHash: string): Promise<CodeWithGrantor | undefined> {
    return this.batch.load(codeHash);
  }
}

/** SQLite's ACTIVE_TOKEN_OWNER (sqlite-hot-paths.ts) for many tokens, each checked at its own `now`. */
const FIND_ACTIVE_OWNERS = `
  select q.i, t.client_id, t.scope, t.created_at, t.expires_at, u.uin, u.user_group,
         u.created_at as user_created_at
    from unnest($1::text[], $2::bigint[]) with ordinality as q(token_hash, now, i)
    join access_tokens t on t.token_hash = q.token_hash
    join users u on u.uin = t.uin
    join apps a on a.client_id = t.client_id
   where t.revoked = 0 and t.expires_at > q.now and u.disabled = 0 and a.disabled = 0`;

/**
 * Redeems a batch of codes in one statement: $1 the codes, $2 the times, $3–$10 the access tokens' columns,
 * $11–$21 the refresh tokens' (null where none). A code is marked used only if it was unused, and only those
 * marked get their tokens; the answer lists the positions (`i`) redeemed.
 */
const REDEEM_CODES = `
  with input as (
    select * from unnest($1::text[], $2::bigint[],
                         $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::bigint[],
                         $10::bigint[],
                         $11::text[], $12::text[], $13::text[], $14::bigint[], $15::text[], $16::bigint[],
                         $17::text[], $18::bigint[], $19::bigint[], $20::bigint[], $21::integer[])
      with ordinality as q(code_hash, now,
                           token_hash, client_id, uin, scope, token_code_hash, family_id, created_at, expires_at,
                           r_token_hash, r_family_id, r_client_id, r_uin, r_scope, r_auth_time, r_code_hash,
                           r_created_at, r_expires_at, r_rotated_at, r_revoked, i)
  ), used as (
    update authorization_codes c set used_at = input.now
      from input
     where c.code_hash = input.code_hash and c.used_at is null
    returning input.i
  ), access as (
    insert into access_tokens (token_hash, client_id, uin, scope, code_hash, family_id, created_at, expires_at, revoked)
    select input.token_hash, input.client_id, input.uin, input.scope, input.token_code_hash, input.family_id,
           input.created_at, input.expires_at, 0
      from input join used on used.i = input.i
  ), refresh as (
    insert into refresh_tokens (token_hash, family_id, client_id, uin, scope, auth_time, code_hash, created_at,
                                expires_at, rotated_at, revoked)
    select input.r_token_hash, input.r_family_id, input.r_client_id, input.r_uin, input.r_scope,
           input.r_auth_time, input.r_code_hash, input.r_created_at, input.r_expires_at, input.r_rotated_at,
           input.r_revoked
      from input join used on used.i = input.i
     where input.r_token_hash is not null
  )
  select i from used`;

interface Redemption {
  readonly codeHash: string;
  readonly now: number;
  readonly access: Selectable<Database['access_tokens']>;
  readonly refresh: Selectable<Database['refresh_tokens']> | undefined;
}

/** REDEEM_CODES' parameters: one array per column. */
function redemptionColumns(batch: readonly Redemption[]): unknown[][] {
  const column = <T>(pick: (r: Redemption) => T): T[] => batch.map(pick);
  return [
    column((r) => r.codeHash),
    column((r) => r.now),
    column((r) => r.access.token_hash),
    column((r) => r.access.client_id),
    column((r) => r.access.uin),
    column((r) => r.access.scope),
    column((r) => r.access.code_hash),
    column((r) => r.access.family_id),
    column((r) => r.access.created_at),
    column((r) => r.access.expires_at),
    column((r) => r.refresh?.token_hash ?? null),
    column((r) => r.refresh?.family_id ?? null),
    column((r) => r.refresh?.client_id ?? null),
    column((r) => r.refresh?.uin ?? null),
    column((r) => r.refresh?.scope ?? null),
    column((r) => r.refresh?.auth_time ?? null),
    column((r) => r.refresh?.code_hash ?? null),
    column((r) => r.refresh?.created_at ?? null),
    column((r) => r.refresh?.expires_at ?? null),
    column((r) => r.refresh?.rotated_at ?? null),
    column((r) => r.refresh?.revoked ?? null),
  ];
}

/** SQLSTATE class 23, integrity constraint violation: the fault of one row, not of the batch. */
function isIntegrityViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('23');
}

export class PostgresTokens extends Tokens {
  private readonly owners: TurnBatcher<{ tokenHash: string; now: number }, ActiveTokenOwner | undefined>;
  private readonly redemptions: TurnBatcher<Redemption, boolean>;

  constructor(db: Kysely<Database>, pool: pg.Pool) {
    super(db);
    this.owners = batchedLookup(pool, {
      name: 'campus_sso_find_active_owners',
      text: FIND_ACTIVE_OWNERS,
      parameters: (keys: readonly { tokenHash: string; now: number }[]) => [
        keys.map((key) => key.tokenHash),
        keys.map((key) => key.now),
      ],
      map: (row: ActiveTokenOwnerRow) => toActiveTokenOwner(row),
    });
    // Redemptions of one turn commit together; the same code twice in a turn goes into two statements.
    this.redemptions = new TurnBatcher(
      async (batch) => {
        const { rows } = await pool.query<{ i: number }>({
          name: 'campus_sso_redeem_codes',
          text: REDEEM_CODES,
          values: redemptionColumns(batch),
        });
        const redeemed = new Set(rows.map((row) => Number(row.i)));
        return batch.map((_, index) => redeemed.has(index + 1));
      },
      { identity: (redemption) => redemption.codeHash, retryAlone: isIntegrityViolation },
    );
  }

  override findActiveOwner(tokenHash: string, now: number): Promise<ActiveTokenOwner | undefined> {
    return this.owners.load({ tokenHash, now });
  }

  override redeemCode(
    codeHash: string,
    now: number,
    accessToken: AccessTokenRecord,
    refreshToken: RefreshTokenRecord | undefined,
  ): Promise<boolean> {
    return this.redemptions.load({
      codeHash,
      now,
      access: accessTokenRow(accessToken),
      refresh: refreshToken ? refreshTokenRow(refreshToken) : undefined,
    });
  }
}
