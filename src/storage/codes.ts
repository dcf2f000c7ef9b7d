/**
 * The authorization_codes table: its queries and its row mappers (docs/architecture.md#storage). The code
 * exchange's read, the code with the user who granted it (and the app the client names), is a hand-written
 * statement per database: prepared
 * on SQLite, and on PostgreSQL coalesced per turn (docs/architecture.md#batching). Redeeming a code writes
 * tokens, so it lives in tokens.ts.
 */
import type { UpdateQueryBuilder, UpdateResult } from 'kysely';
import type { HotPath } from './connection.js';
import { Repository, forDialect, nullableNumber, parseList } from './connection.js';
import { batchedLookup, preparedLookup } from './hot-path-statements.js';
import type { Database, Row } from './schema.js';
import type {
  AuthorizationCodeRecord,
  CodeChallengeMethod,
  CodeRepository,
  CodeWithGrantor,
  ExchangeRead,
  UserGroup,
} from './store.js';
import { joinAmr, splitAmr } from './sessions.js';
import { CLIENT_SETTINGS_COLUMNS, type ClientSettingsRow, toClient } from './apps.js';

/** Used codes are kept a day past expiry, so a late replay still revokes its tokens (RFC 9700 §4.2.4). */
const USED_CODE_RETENTION_MS = 24 * 3600 * 1000;

type CodeRow = Row<'authorization_codes'>;

type VoidQuery = UpdateQueryBuilder<Database, 'authorization_codes', 'authorization_codes', UpdateResult>;

export function toCode(row: CodeRow): AuthorizationCodeRecord {
  return {
    codeHash: row.code_hash,
    clientId: row.client_id,
    uin: Number(row.uin),
    redirectUri: row.redirect_uri,
    scope: row.scope,
    nonce: row.nonce,
    codeChallenge: row.code_challenge,
    codeChallengeMethod: row.code_challenge_method as CodeChallengeMethod | null,
    authTime: Number(row.auth_time),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    usedAt: nullableNumber(row.used_at),
    amr: splitAmr(row.amr),
    sid: row.sid,
  };
}

function codeRow(code: AuthorizationCodeRecord): Row<'authorization_codes'> {
  return {
    code_hash: code.codeHash,
    client_id: code.clientId,
    uin: code.uin,
    redirect_uri: code.redirectUri,
    scope: code.scope,
    nonce: code.nonce,
    code_challenge: code.codeChallenge,
    code_challenge_method: code.codeChallengeMethod,
    auth_time: code.authTime,
    created_at: code.createdAt,
    expires_at: code.expiresAt,
    used_at: code.usedAt,
    amr: joinAmr(code.amr),
    sid: code.sid,
  };
}

/**
 * The code's columns, then those of its user that a TokenSubject holds, under a `user_` prefix (null when the
 * user is gone). Not the password hash nor the sign-in bookkeeping: the exchange needs neither, and on
 * PostgreSQL every column read is a string parsed and collected again.
 */
type CodeWithGrantorRow = CodeRow & {
  user_group: string | null;
  user_created_at: number | null;
  user_disabled: number | null;
  user_name: string | null;
  user_email: string | null;
  user_groups: string | null;
  user_expires_at: number | null;
};

function toCodeWithGrantor(row: CodeWithGrantorRow): CodeWithGrantor {
  // Read by name, not split with `...rest`: a rest copy of a row this wide cost more than the query itself.
  return {
    code: toCode(row),
    user:
      row.user_group === null || row.user_created_at === null || row.user_disabled === null
        ? undefined
        : {
            uin: Number(row.uin),
            userGroup: row.user_group as UserGroup,
            createdAt: Number(row.user_created_at),
            disabled: row.user_disabled === 1,
            expiresAt: nullableNumber(row.user_expires_at),
            name: row.user_name,
            email: row.user_email,
            groups: parseList(row.user_groups),
          },
  };
}

/** CodeWithGrantorRow's select list and joins, shared by both databases' statements. */
const WITH_GRANTOR_COLUMNS = `c.*, u.user_group, u.created_at as user_created_at, u.disabled as user_disabled,
         u.name as user_name, u.email as user_email, u.groups as user_groups,
         u.expires_at as user_expires_at`;
const WITH_GRANTOR_JOIN = 'left join users u on u.uin = c.uin';

type FindWithGrantor = (codeHash: string) => Promise<CodeWithGrantor | undefined>;

const codeWithGrantor: HotPath<FindWithGrantor> = {
  sqlite(database) {
    return preparedLookup(
      database,
      `select ${WITH_GRANTOR_COLUMNS} from authorization_codes c ${WITH_GRANTOR_JOIN} where c.code_hash = ?`,
      toCodeWithGrantor,
    );
  },
  postgres(pool) {
    return batchedLookup(pool, {
      name: 'campus_sso_find_codes_with_grantor',
      text: `
        select q.i, ${WITH_GRANTOR_COLUMNS}
          from unnest($1::text[]) with ordinality as q(code_hash, i)
          join authorization_codes c on c.code_hash = q.code_hash
          ${WITH_GRANTOR_JOIN}`,
      map: toCodeWithGrantor,
    });
  },
};

/*
 * The code exchange's one read (docs/architecture.md#one-request-end-to-end): the app the client names, the code,
 * and the user who granted it, in one statement, so client authentication costs no round trip of its own.
 * Every part may be missing: the row is always there, its columns null.
 */

/** Nullable all through: left joins. `app_client_id` is the app's, `client_id` the code's. */
type ExchangeRow = { app_client_id: string | null } & Nullable<ClientSettingsRow> &
  Nullable<CodeWithGrantorRow>;
type Nullable<T> = { [K in keyof T]: T[K] | null };

function toExchangeRead(row: ExchangeRow): ExchangeRead {
  return {
    client: row.app_client_id === null ? undefined : toClient(row as ClientSettingsRow, row.app_client_id),
    found: row.code_hash === null ? undefined : toCodeWithGrantor(row as CodeWithGrantorRow),
  };
}

const COLUMNS = `a.client_id as app_client_id, ${CLIENT_SETTINGS_COLUMNS}, ${WITH_GRANTOR_COLUMNS}`;
const JOINS = `left join apps a on a.client_id = q.client_id
  left join authorization_codes c on c.code_hash = q.code_hash
  ${WITH_GRANTOR_JOIN}`;

const NOTHING: ExchangeRead = { client: undefined, found: undefined };

type FindForExchange = (codeHash: string, clientId: string) => Promise<ExchangeRead>;

const exchangeRead: HotPath<FindForExchange> = {
  sqlite(database) {
    const lookup = preparedLookup(
      database,
      `select ${COLUMNS} from (select ? as client_id, ? as code_hash) q ${JOINS}`,
      toExchangeRead,
    );
    return async (codeHash, clientId) => (await lookup(clientId, codeHash)) ?? NOTHING;
  },
  postgres(pool) {
    const lookup = batchedLookup(pool, {
      name: 'campus_sso_find_for_exchange',
      text: `
        select q.i, ${COLUMNS}
          from unnest($1::text[], $2::text[]) with ordinality as q(client_id, code_hash, i)
          ${JOINS}`,
      map: toExchangeRead,
    });
    return async (codeHash, clientId) => (await lookup(clientId, codeHash)) ?? NOTHING;
  },
};

export class Codes extends Repository implements CodeRepository {
  /** By codeWithGrantor's statement for this database. */
  readonly findWithGrantor = forDialect(this.connection, codeWithGrantor);
  /** By exchangeRead's statement for this database. */
  readonly findForExchange = forDialect(this.connection, exchangeRead);

  async insert(code: AuthorizationCodeRecord): Promise<void> {
    await this.db.insertInto('authorization_codes').values(codeRow(code)).execute();
  }

  find(codeHash: string): Promise<AuthorizationCodeRecord | undefined> {
    return this.findBy('authorization_codes', 'code_hash', codeHash, toCode);
  }

  /*
   * Voiding marks a code used rather than deleting it: a voided code presented later is then a replay like any
   * other (refused, and whatever a racing redemption issued from it is revoked, RFC 9700 §4.2.4), and the row
   * goes with the daily purge. Only codes still redeemable at `now` are touched: the `expires_at` index finds
   * the last ten minutes' codes, so no index on `uin` (a cost on every code issued) is needed.
   */
  async voidForUser(uin: number, now: number): Promise<number> {
    return this.void(now, (query) => query.where('uin', '=', uin));
  }

  async voidForUserAndApp(uin: number, clientId: string, now: number): Promise<number> {
    return this.void(now, (query) => query.where('uin', '=', uin).where('client_id', '=', clientId));
  }

  async voidForApp(clientId: string, now: number): Promise<number> {
    return this.void(now, (query) => query.where('client_id', '=', clientId));
  }

  private async void(now: number, which: (query: VoidQuery) => VoidQuery): Promise<number> {
    const query = this.db
      .updateTable('authorization_codes')
      .set({ used_at: now })
      .where('used_at', 'is', null)
      .where('expires_at', '>', now);
    return Number((await which(query).executeTakeFirst()).numUpdatedRows);
  }

  /** Deletes the codes a day past expiry at `now`; answers how many. */
  purgeExpired(now: number): Promise<number> {
    return this.deleteExpired('authorization_codes', now - USED_CODE_RETENTION_MS);
  }
}
