/**
 * The apps table: its queries and its row mappers (docs/architecture.md#storage). `findClient` authenticates
 * the clients of the token endpoint (but in the code exchange, which reads the app with the code: codes.ts),
 * so it is a hand-written statement per database (prepared on SQLite, on PostgreSQL coalesced per turn,
 * docs/architecture.md#batching) that reads only the columns client authentication and the grants need;
 * `find`, the whole app, is one too. Writes are on disk before they are answered (`writeDurably`).
 */
import type { HotPath } from './connection.js';
import { Repository, forDialect, parseList } from './connection.js';
import { columns } from './columns.js';
import { batchedLookup, preparedLookup } from './hot-path-statements.js';
import { insertDurablyIfAbsent, updateDurably, writeDurably } from './durable-writes.js';
import type { Row } from './schema.js';
import type { AppRecord, AppRepository, ClientRecord } from './store.js';

export type AppRow = Row<'apps'>;

export function toApp(row: AppRow): AppRecord {
  return {
    clientId: row.client_id,
    name: row.name,
    emoji: row.emoji,
    secretHash: row.secret_hash,
    redirectUris: parseList(row.redirect_uris),
    createdAt: Number(row.created_at),
    disabled: row.disabled === 1,
    allowRefreshTokens: row.allow_refresh_tokens === 1,
    allowedGroups: parseList(row.allowed_groups),
    postLogoutRedirectUris: parseList(row.post_logout_redirect_uris),
    backchannelLogoutUri: row.backchannel_logout_uri,
    backchannelLogoutLast:
      row.backchannel_logout_last_at === null || row.backchannel_logout_last_result === null
        ? null
        : { at: Number(row.backchannel_logout_last_at), result: row.backchannel_logout_last_result },
    listed: row.listed === 1,
    homepageUrl: row.homepage_url,
    casServices: parseList(row.cas_services),
    deviceGrant: row.device_grant === 1,
    clientCredentials: row.client_credentials === 1,
    allowedScopes: parseList(row.allowed_scopes),
  };
}

/** A new app's row: what AppRecord leaves out takes its default. */
function appRow(app: AppRecord): Row<'apps'> {
  const { backchannelLogoutLast, listed = false, homepageUrl = null, casServices = [], ...rest } = app;
  const { deviceGrant = false, clientCredentials = false, allowedScopes = [], ...fields } = rest;
  return {
    ...columns({
      ...fields,
      listed,
      homepageUrl,
      casServices,
      deviceGrant,
      clientCredentials,
      allowedScopes,
    }),
    backchannel_logout_last_at: backchannelLogoutLast?.at ?? null,
    backchannel_logout_last_result: backchannelLogoutLast?.result ?? null,
  };
}

type FindApp = (clientId: string) => Promise<AppRecord | undefined>;

const findApp: HotPath<FindApp> = {
  sqlite(database) {
    return preparedLookup(database, 'select * from apps where client_id = ?', toApp);
  },
  postgres(pool) {
    return batchedLookup(pool, {
      name: 'campus_sso_find_apps',
      text: `
        select q.i, a.*
          from unnest($1::text[]) with ordinality as q(client_id, i)
          join apps a on a.client_id = q.client_id`,
      map: toApp,
    });
  },
};

/** The columns ClientRecord is read from (of `apps a`): the client_id, and its settings. */
export interface ClientRow extends ClientSettingsRow {
  client_id: string;
}

/** What client authentication and the grants read of an app, besides its client_id. */
export interface ClientSettingsRow {
  secret_hash: string;
  disabled: number;
  allow_refresh_tokens: number;
  allowed_groups: string;
  device_grant: number;
  client_credentials: number;
  allowed_scopes: string;
}

/** ClientSettingsRow's columns (of `apps a`); the code exchange reads them with the code (codes.ts). */
export const CLIENT_SETTINGS_COLUMNS =
  'a.secret_hash, a.disabled, a.allow_refresh_tokens, a.allowed_groups, a.device_grant, ' +
  'a.client_credentials, a.allowed_scopes';

/** The client `clientId` from its settings' row. */
export function toClient(row: ClientSettingsRow, clientId: string): ClientRecord {
  return {
    clientId,
    secretHash: row.secret_hash,
    disabled: row.disabled === 1,
    allowRefreshTokens: row.allow_refresh_tokens === 1,
    // Every grant checks it (docs/interface.md#people-groups-and-audit); most apps name none.
    allowedGroups: parseList(row.allowed_groups),
    deviceGrant: row.device_grant === 1,
    clientCredentials: row.client_credentials === 1,
    allowedScopes: parseList(row.allowed_scopes),
  };
}

type FindClient = (clientId: string) => Promise<ClientRecord | undefined>;

const findClient: HotPath<FindClient> = {
  sqlite(database) {
    return preparedLookup(
      database,
      `select a.client_id, ${CLIENT_SETTINGS_COLUMNS} from apps a where a.client_id = ?`,
      (row: ClientRow) => toClient(row, row.client_id),
    );
  },
  postgres(pool) {
    return batchedLookup(pool, {
      name: 'campus_sso_find_clients',
      text: `
        select q.i, a.client_id, ${CLIENT_SETTINGS_COLUMNS}
          from unnest($1::text[]) with ordinality as q(client_id, i)
          join apps a on a.client_id = q.client_id`,
      map: (row: ClientRow) => toClient(row, row.client_id),
    });
  },
};

type AppChanges = Parameters<AppRepository['update']>[1];

export class Apps extends Repository implements AppRepository {
  /** By findApp's statement for this database. */
  readonly find = forDialect(this.connection, findApp);
  /** By findClient's statement for this database. */
  readonly findClient = forDialect(this.connection, findClient);

  insert(app: AppRecord): Promise<boolean> {
    return insertDurablyIfAbsent(this.connection, 'apps', 'client_id', appRow(app));
  }

  update(clientId: string, changes: AppChanges): Promise<boolean> {
    return updateDurably(this.connection, 'apps', 'client_id', clientId, columns(changes));
  }

  /** Deletes the app with everything issued to it, in one transaction. */
  async delete(clientId: string): Promise<boolean> {
    const tables = [
      'authorization_codes',
      'access_tokens',
      'refresh_tokens',
      'consents',
      'session_apps',
      'logout_deliveries',
      'cas_tickets',
      'device_authorizations',
      'service_tokens',
      'apps',
    ] as const;
    const changes = await writeDurably(
      this.connection,
      tables.map((table) => this.db.deleteFrom(table).where('client_id', '=', clientId).compile()),
    );
    return (changes.at(-1) ?? 0) > 0;
  }

  async list(): Promise<AppRecord[]> {
    const rows = await this.db.selectFrom('apps').selectAll().orderBy('created_at', 'desc').execute();
    return rows.map(toApp);
  }
}
