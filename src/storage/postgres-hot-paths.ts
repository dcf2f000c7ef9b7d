/**
 * PostgreSQL versions of the benchmarked queries as named prepared statements on the pool (parsed and planned
 * once per connection), skipping the query builder. Redeeming a code is ONE statement — data-modifying CTEs
 * mark the code used and insert the tokens only if it was unused — so it is atomic without an explicit
 * transaction and costs one round trip.
 */
import type { Kysely, Selectable } from 'kysely';
import type pg from 'pg';
import {
  Apps,
  Codes,
  Tokens,
  Users,
  ACTIVE_TOKEN_OWNER_SQL,
  type ActiveTokenOwnerRow,
  accessTokenRow,
  refreshTokenRow,
  toActiveTokenOwner,
  toApp,
  toCode,
  toUser,
} from './kysely-store.js';
import type { Database } from './schema.js';
import type {
  AccessTokenRecord,
  ActiveTokenOwner,
  AppRecord,
  AuthorizationCodeRecord,
  RefreshTokenRecord,
  UserRecord,
} from './store.js';

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

export class PostgresApps extends Apps {
  constructor(
    db: Kysely<Database>,
    private readonly pool: pg.Pool,
  ) {
    super(db);
  }

  override async find(clientId: string): Promise<AppRecord | undefined> {
    const { rows } = await this.pool.query<Selectable<Database['apps']>>({
      name: 'campus_sso_find_app',
      text: 'select * from apps where client_id = $1',
      values: [clientId],
    });
    return rows[0] && toApp(rows[0]);
  }
}

export class PostgresCodes extends Codes {
  constructor(
    db: Kysely<Database>,
    private readonly pool: pg.Pool,
  ) {
    super(db);
  }

  override async find(codeHash: string): Promise<AuthorizationCodeRecord | undefined> {
    const { rows } = await this.pool.query<Selectable<Database['authorization_codes']>>({
      name: 'campus_sso_find_code',
      text: 'select * from authorization_codes where code_hash = $1',
      values: [codeHash],
    });
    return rows[0] && toCode(rows[0]);
  }
}

const FIND_ACTIVE_OWNER = ACTIVE_TOKEN_OWNER_SQL((n) => `$${n}`);

/** $1 now, $2 code hash, $3–$10 the access token, $11–$21 the refresh token (all null when none). */
const REDEEM_CODE = `
  with used as (
    update authorization_codes set used_at = $1 where code_hash = $2 and used_at is null returning code_hash
  ), access as (
    insert into access_tokens (token_hash, client_id, uin, scope, code_hash, family_id, created_at, expires_at, revoked)
    select $3::text, $4::text, $5::bigint, $6::text, $7::text, $8::text, $9::bigint, $10::bigint, 0 from used
  ), refresh as (
    insert into refresh_tokens (token_hash, family_id, client_id, uin, scope, auth_time, code_hash, created_at,
                                expires_at, rotated_at, revoked)
    select $11::text, $12::text, $13::text, $14::bigint, $15::text, $16::bigint, $17::text, $18::bigint,
           $19::bigint, $20::bigint, $21::integer
      from used where $11::text is not null
  )
  select count(*) as redeemed from used`;

export class PostgresTokens extends Tokens {
  constructor(
    db: Kysely<Database>,
    private readonly pool: pg.Pool,
  ) {
    super(db);
  }

  override async findActiveOwner(tokenHash: string, now: number): Promise<ActiveTokenOwner | undefined> {
    const { rows } = await this.pool.query<ActiveTokenOwnerRow>({
      name: 'campus_sso_find_active_owner',
      text: FIND_ACTIVE_OWNER,
      values: [tokenHash, now],
    });
    return rows[0] && toActiveTokenOwner(rows[0]);
  }

  override async redeemCode(
    codeHash: string,
    now: number,
    accessToken: AccessTokenRecord,
    refreshToken: RefreshTokenRecord | undefined,
  ): Promise<boolean> {
    const access = accessTokenRow(accessToken);
    const refresh = refreshToken ? refreshTokenRow(refreshToken) : undefined;
    const { rows } = await this.pool.query<{ redeemed: number }>({
      name: 'campus_sso_redeem_code',
      text: REDEEM_CODE,
      values: [
        now,
        codeHash,
        access.token_hash,
        access.client_id,
        access.uin,
        access.scope,
        access.code_hash,
        access.family_id,
        access.created_at,
        access.expires_at,
        refresh?.token_hash ?? null,
        refresh?.family_id ?? null,
        refresh?.client_id ?? null,
        refresh?.uin ?? null,
        refresh?.scope ?? null,
        refresh?.auth_time ?? null,
        refresh?.code_hash ?? null,
        refresh?.created_at ?? null,
        refresh?.expires_at ?? null,
        refresh?.rotated_at ?? null,
        refresh?.revoked ?? null,
      ],
    });
    return Number(rows[0]?.redeemed ?? 0) > 0;
  }
}
