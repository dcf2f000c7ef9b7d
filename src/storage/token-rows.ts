/**
 * The rows of access_tokens and refresh_tokens: their column lists and the mappers between rows and records,
 * beside tokens.ts, whose queries use them (docs/architecture.md#storage).
 */
import { bit, nullableNumber, parseList } from './connection.js';
import { groupsAllow } from '../shared/people.js';
import { joinAmr, splitAmr } from './sessions.js';
import type { AccessTokensTable, RefreshTokensTable, Row } from './schema.js';
import type { AccessTokenRecord, ActiveTokenOwner, RefreshTokenRecord, UserGroup } from './store.js';

/** The element types of the arrays that PostgreSQL's batched statements take, one array per column. */
type PgType = 'text' | 'bigint' | 'integer';

/**
 * Each token table's columns with their PostgreSQL types: the one definition that the hand-written
 * statements in tokens.ts are generated from. `satisfies` makes a column added to schema.ts a compile error
 * here until it is listed, and then every statement carries it.
 */
const ACCESS_TOKEN_TYPES = {
  token_hash: 'text',
  client_id: 'text',
  uin: 'bigint',
  scope: 'text',
  code_hash: 'text',
  family_id: 'text',
  created_at: 'bigint',
  expires_at: 'bigint',
  revoked: 'integer',
} as const satisfies Record<keyof AccessTokensTable, PgType>;

const REFRESH_TOKEN_TYPES = {
  token_hash: 'text',
  family_id: 'text',
  client_id: 'text',
  uin: 'bigint',
  scope: 'text',
  auth_time: 'bigint',
  code_hash: 'text',
  created_at: 'bigint',
  expires_at: 'bigint',
  rotated_at: 'bigint',
  revoked: 'integer',
  amr: 'text',
  sid: 'text',
} as const satisfies Record<keyof RefreshTokensTable, PgType>;

export interface Column<Name extends string> {
  readonly name: Name;
  readonly pgType: PgType;
}

function columns<T>(types: Record<keyof T & string, PgType>): readonly Column<keyof T & string>[] {
  return Object.entries(types).map(([name, pgType]) => ({ name, pgType }) as Column<keyof T & string>);
}

export const ACCESS_TOKEN_COLUMNS = columns<AccessTokensTable>(ACCESS_TOKEN_TYPES);
export const REFRESH_TOKEN_COLUMNS = columns<RefreshTokensTable>(REFRESH_TOKEN_TYPES);

export type AccessTokenRow = Row<'access_tokens'>;
export type RefreshTokenRow = Row<'refresh_tokens'>;

export function toAccessToken(row: AccessTokenRow): AccessTokenRecord {
  return {
    tokenHash: row.token_hash,
    clientId: row.client_id,
    uin: Number(row.uin),
    scope: row.scope,
    codeHash: row.code_hash,
    familyId: row.family_id,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    revoked: row.revoked === 1,
  };
}

export function toRefreshToken(row: RefreshTokenRow): RefreshTokenRecord {
  return {
    tokenHash: row.token_hash,
    familyId: row.family_id,
    clientId: row.client_id,
    uin: Number(row.uin),
    scope: row.scope,
    authTime: Number(row.auth_time),
    codeHash: row.code_hash,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    rotatedAt: nullableNumber(row.rotated_at),
    revoked: row.revoked === 1,
    amr: splitAmr(row.amr),
    sid: row.sid,
  };
}

export function accessTokenRow(token: AccessTokenRecord): AccessTokenRow {
  return {
    token_hash: token.tokenHash,
    client_id: token.clientId,
    uin: token.uin,
    scope: token.scope,
    code_hash: token.codeHash,
    family_id: token.familyId,
    created_at: token.createdAt,
    expires_at: token.expiresAt,
    revoked: bit(token.revoked),
  };
}

export function refreshTokenRow(token: RefreshTokenRecord): RefreshTokenRow {
  return {
    token_hash: token.tokenHash,
    family_id: token.familyId,
    client_id: token.clientId,
    uin: token.uin,
    scope: token.scope,
    auth_time: token.authTime,
    code_hash: token.codeHash,
    created_at: token.createdAt,
    expires_at: token.expiresAt,
    rotated_at: token.rotatedAt,
    revoked: bit(token.revoked),
    amr: joinAmr(token.amr),
    sid: token.sid,
  };
}

/**
 * The active-owner query's select list (over `access_tokens t`, `users u` and `apps a`), the same on both
 * databases. The app's allowed groups and the user's come with it, so that the allowed_groups rule is checked
 * on every use of a token without another query (toActiveTokenOwner). Measured in-process on SQLite, before
 * and after the two columns, alternating runs on the shared 2-core development VM: 6–27 µs per look-up both
 * ways, within the noise.
 */
export const ACTIVE_OWNER_COLUMNS =
  't.client_id, t.scope, t.created_at, t.expires_at, u.uin, u.user_group, u.created_at as user_created_at, ' +
  'a.allowed_groups, u.groups as user_groups';

/** The rows ACTIVE_OWNER_COLUMNS selects. */
export interface ActiveTokenOwnerRow {
  client_id: string;
  scope: string | null;
  created_at: number;
  expires_at: number;
  uin: number;
  user_group: string;
  user_created_at: number;
  allowed_groups: string;
  user_groups: string;
}

/**
 * The token's owner, or undefined when the user may not use the app (any more): outside its allowed groups
 * (docs/interface.md#people-groups-and-audit), whose token then stops working as a disabled user's does.
 * `parseList` skips the parse of an empty list, which most apps' allowed groups are.
 */
export function toActiveTokenOwner(row: ActiveTokenOwnerRow): ActiveTokenOwner | undefined {
  if (!groupsAllow(parseList(row.allowed_groups), parseList(row.user_groups))) return undefined;
  return {
    token: {
      clientId: row.client_id,
      scope: row.scope,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
    },
    user: {
      uin: Number(row.uin),
      userGroup: row.user_group as UserGroup,
      createdAt: Number(row.user_created_at),
    },
  };
}
