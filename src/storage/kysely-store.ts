/**
 * The Store on Kysely: one implementation, the same SQL for SQLite and PostgreSQL. All SQL lives here.
 */
import { type Kysely, Migrator, type Selectable, type Transaction, sql } from 'kysely';
import { migrationProvider } from './migrations/index.js';
import type { Database } from './schema.js';
import type {
  AccessTokenRecord,
  ActiveTokenOwner,
  AppRecord,
  AppRepository,
  AuthorizationCodeRecord,
  CodeChallengeMethod,
  CodeRepository,
  CodeWithGrantor,
  ConsentRecord,
  ConsentRepository,
  ConsentWithApp,
  PurgeReport,
  RefreshTokenRecord,
  SessionRecord,
  SessionRepository,
  SigningKeyRecord,
  SigningKeyRepository,
  Store,
  ThrottleRepository,
  ThrottleState,
  TokenRepository,
  UserGroup,
  UserListQuery,
  UserRecord,
  UserRepository,
} from './store.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Used codes are kept a day past expiry, so a late replay still revokes its tokens (RFC 9700 §4.2.4). */
const USED_CODE_RETENTION_MS = 24 * 3600 * 1000;

const bit = (value: boolean): number => (value ? 1 : 0);

export function toUser(row: Selectable<Database['users']>): UserRecord {
  return {
    uin: Number(row.uin),
    passwordHash: row.password_hash,
    userGroup: row.user_group as UserGroup,
    createdAt: Number(row.created_at),
    disabled: row.disabled === 1,
  };
}

export function toApp(row: Selectable<Database['apps']>): AppRecord {
  return {
    clientId: row.client_id,
    name: row.name,
    emoji: row.emoji,
    secretHash: row.secret_hash,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    createdAt: Number(row.created_at),
    disabled: row.disabled === 1,
    allowRefreshTokens: row.allow_refresh_tokens === 1,
  };
}

/** The columns of the active-token-owner query, the same on every dialect. */
export interface ActiveTokenOwnerRow {
  client_id: string;
  scope: string | null;
  created_at: number;
  expires_at: number;
  uin: number;
  user_group: string;
  user_created_at: number;
}

export function toActiveTokenOwner(row: ActiveTokenOwnerRow): ActiveTokenOwner {
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

/** The code's columns, then its user's under a `user_` prefix (null when the user is gone). */
export type CodeWithGrantorRow = Selectable<Database['authorization_codes']> & {
  user_password_hash: string | null;
  user_group: string | null;
  user_created_at: number | null;
  user_disabled: number | null;
};

export function toCodeWithGrantor(row: CodeWithGrantorRow): CodeWithGrantor {
  const { user_password_hash, user_group, user_created_at, user_disabled, ...code } = row;
  return {
    code: toCode(code),
    user:
      user_password_hash === null || user_group === null || user_created_at === null || user_disabled === null
        ? undefined
        : toUser({
            uin: code.uin,
            password_hash: user_password_hash,
            user_group,
            created_at: user_created_at,
            disabled: user_disabled,
          }),
  };
}

export function toCode(row: Selectable<Database['authorization_codes']>): AuthorizationCodeRecord {
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
    usedAt: row.used_at === null ? null : Number(row.used_at),
  };
}

function toAccessToken(row: Selectable<Database['access_tokens']>): AccessTokenRecord {
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

function toRefreshToken(row: Selectable<Database['refresh_tokens']>): RefreshTokenRecord {
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
    rotatedAt: row.rotated_at === null ? null : Number(row.rotated_at),
    revoked: row.revoked === 1,
  };
}

export function accessTokenRow(token: AccessTokenRecord): Selectable<Database['access_tokens']> {
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

export function refreshTokenRow(token: RefreshTokenRecord): Selectable<Database['refresh_tokens']> {
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
  };
}

function changed(result: { numUpdatedRows?: bigint; numDeletedRows?: bigint }): boolean {
  return (result.numUpdatedRows ?? result.numDeletedRows ?? 0n) > 0n;
}

export class Users implements UserRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async find(uin: number): Promise<UserRecord | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('uin', '=', uin).executeTakeFirst();
    return row && toUser(row);
  }

  async insert(user: UserRecord): Promise<boolean> {
    const result = await this.db
      .insertInto('users')
      .values({
        uin: user.uin,
        password_hash: user.passwordHash,
        user_group: user.userGroup,
        created_at: user.createdAt,
        disabled: bit(user.disabled),
      })
      .onConflict((oc) => oc.column('uin').doNothing())
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  async update(
    uin: number,
    changes: Partial<Pick<UserRecord, 'passwordHash' | 'userGroup' | 'disabled'>>,
  ): Promise<boolean> {
    const set: Partial<Database['users']> = {};
    if (changes.passwordHash !== undefined) set.password_hash = changes.passwordHash;
    if (changes.userGroup !== undefined) set.user_group = changes.userGroup;
    if (changes.disabled !== undefined) set.disabled = bit(changes.disabled);
    if (Object.keys(set).length === 0) return (await this.find(uin)) !== undefined;
    return changed(await this.db.updateTable('users').set(set).where('uin', '=', uin).executeTakeFirst());
  }

  async list(query: UserListQuery): Promise<{ users: UserRecord[]; total: number }> {
    let base = this.db.selectFrom('users');
    if (query.search) {
      // A uin prefix: compare the decimal text, the same on both databases.
      base = base.where(sql<string>`cast(uin as text)`, 'like', `${query.search.replace(/\D/g, '')}%`);
    }
    if (query.group) base = base.where('user_group', '=', query.group);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('uin').limit(query.limit).offset(query.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { users: rows.map(toUser), total: Number(count.n) };
  }

  async countAdmins(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_group', '=', 'admin')
      .where('disabled', '=', 0)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

export class Apps implements AppRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async find(clientId: string): Promise<AppRecord | undefined> {
    const row = await this.db
      .selectFrom('apps')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return row && toApp(row);
  }

  async insert(app: AppRecord): Promise<boolean> {
    const result = await this.db
      .insertInto('apps')
      .values({
        client_id: app.clientId,
        name: app.name,
        emoji: app.emoji,
        secret_hash: app.secretHash,
        redirect_uris: JSON.stringify(app.redirectUris),
        created_at: app.createdAt,
        disabled: bit(app.disabled),
        allow_refresh_tokens: bit(app.allowRefreshTokens),
      })
      .onConflict((oc) => oc.column('client_id').doNothing())
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  async update(
    clientId: string,
    changes: Partial<
      Pick<AppRecord, 'name' | 'emoji' | 'secretHash' | 'redirectUris' | 'disabled' | 'allowRefreshTokens'>
    >,
  ): Promise<boolean> {
    const set: Partial<Database['apps']> = {};
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.emoji !== undefined) set.emoji = changes.emoji;
    if (changes.secretHash !== undefined) set.secret_hash = changes.secretHash;
    if (changes.redirectUris !== undefined) set.redirect_uris = JSON.stringify(changes.redirectUris);
    if (changes.disabled !== undefined) set.disabled = bit(changes.disabled);
    if (changes.allowRefreshTokens !== undefined) set.allow_refresh_tokens = bit(changes.allowRefreshTokens);
    if (Object.keys(set).length === 0) return (await this.find(clientId)) !== undefined;
    return changed(
      await this.db.updateTable('apps').set(set).where('client_id', '=', clientId).executeTakeFirst(),
    );
  }

  async delete(clientId: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('authorization_codes').where('client_id', '=', clientId).execute();
      await trx.deleteFrom('access_tokens').where('client_id', '=', clientId).execute();
      await trx.deleteFrom('refresh_tokens').where('client_id', '=', clientId).execute();
      await trx.deleteFrom('consents').where('client_id', '=', clientId).execute();
      return changed(await trx.deleteFrom('apps').where('client_id', '=', clientId).executeTakeFirst());
    });
  }

  async list(): Promise<AppRecord[]> {
    const rows = await this.db.selectFrom('apps').selectAll().orderBy('created_at', 'desc').execute();
    return rows.map(toApp);
  }
}

class Sessions implements SessionRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(session: SessionRecord): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({
        id_hash: session.idHash,
        uin: session.uin,
        created_at: session.createdAt,
        expires_at: session.expiresAt,
      })
      .execute();
  }

  async findActive(idHash: string, now: number): Promise<SessionRecord | undefined> {
    const row = await this.db
      .selectFrom('sessions')
      .selectAll()
      .where('id_hash', '=', idHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return (
      row && {
        idHash: row.id_hash,
        uin: Number(row.uin),
        createdAt: Number(row.created_at),
        expiresAt: Number(row.expires_at),
      }
    );
  }

  async delete(idHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
  }

  async deleteForUser(uin: number, keepIdHash?: string): Promise<void> {
    let query = this.db.deleteFrom('sessions').where('uin', '=', uin);
    if (keepIdHash !== undefined) query = query.where('id_hash', '!=', keepIdHash);
    await query.execute();
  }
}

export class Codes implements CodeRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(code: AuthorizationCodeRecord): Promise<void> {
    await this.db
      .insertInto('authorization_codes')
      .values({
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
      })
      .execute();
  }

  async find(codeHash: string): Promise<AuthorizationCodeRecord | undefined> {
    const row = await this.db
      .selectFrom('authorization_codes')
      .selectAll()
      .where('code_hash', '=', codeHash)
      .executeTakeFirst();
    return row && toCode(row);
  }

  async findWithGrantor(codeHash: string): Promise<CodeWithGrantor | undefined> {
    const row = await this.db
      .selectFrom('authorization_codes as c')
      .leftJoin('users as u', 'u.uin', 'c.uin')
      .selectAll('c')
      .select([
        'u.password_hash as user_password_hash',
        'u.user_group',
        'u.created_at as user_created_at',
        'u.disabled as user_disabled',
      ])
      .where('c.code_hash', '=', codeHash)
      .executeTakeFirst();
    return row && toCodeWithGrantor(row);
  }
}

export class Tokens implements TokenRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async redeemCode(
    codeHash: string,
    now: number,
    accessToken: AccessTokenRecord,
    refreshToken: RefreshTokenRecord | undefined,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const marked = await trx
        .updateTable('authorization_codes')
        .set({ used_at: now })
        .where('code_hash', '=', codeHash)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (!changed(marked)) return false;
      await trx.insertInto('access_tokens').values(accessTokenRow(accessToken)).execute();
      if (refreshToken)
        await trx.insertInto('refresh_tokens').values(refreshTokenRow(refreshToken)).execute();
      return true;
    });
  }

  async revokeByCode(codeHash: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('access_tokens').set({ revoked: 1 }).where('code_hash', '=', codeHash).execute();
      const families = await trx
        .selectFrom('refresh_tokens')
        .select('family_id')
        .where('code_hash', '=', codeHash)
        .execute();
      for (const { family_id } of families) await revokeFamily(trx, family_id);
    });
  }

  async findActiveOwner(tokenHash: string, now: number): Promise<ActiveTokenOwner | undefined> {
    const row = await this.db
      .selectFrom('access_tokens as t')
      .innerJoin('users as u', 'u.uin', 't.uin')
      .innerJoin('apps as a', 'a.client_id', 't.client_id')
      .select([
        't.client_id',
        't.scope',
        't.created_at',
        't.expires_at',
        'u.uin',
        'u.user_group',
        'u.created_at as user_created_at',
      ])
      .where('t.token_hash', '=', tokenHash)
      .where('t.revoked', '=', 0)
      .where('t.expires_at', '>', now)
      .where('u.disabled', '=', 0)
      .where('a.disabled', '=', 0)
      .executeTakeFirst();
    return row && toActiveTokenOwner(row);
  }

  async findAccessToken(tokenHash: string): Promise<AccessTokenRecord | undefined> {
    const row = await this.db
      .selectFrom('access_tokens')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row && toAccessToken(row);
  }

  async revokeAccessToken(tokenHash: string): Promise<void> {
    await this.db
      .updateTable('access_tokens')
      .set({ revoked: 1 })
      .where('token_hash', '=', tokenHash)
      .execute();
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | undefined> {
    const row = await this.db
      .selectFrom('refresh_tokens')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row && toRefreshToken(row);
  }

  async rotateRefreshToken(
    oldHash: string,
    now: number,
    accessToken: AccessTokenRecord,
    refreshToken: RefreshTokenRecord,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
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
    await this.db.transaction().execute((trx) => revokeFamily(trx, familyId));
  }

  async revokeForUserAndApp(uin: number, clientId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('access_tokens')
        .set({ revoked: 1 })
        .where('uin', '=', uin)
        .where('client_id', '=', clientId)
        .execute();
      await trx
        .updateTable('refresh_tokens')
        .set({ revoked: 1 })
        .where('uin', '=', uin)
        .where('client_id', '=', clientId)
        .execute();
    });
  }
}

async function revokeFamily(db: Db, familyId: string): Promise<void> {
  await db.updateTable('refresh_tokens').set({ revoked: 1 }).where('family_id', '=', familyId).execute();
  await db.updateTable('access_tokens').set({ revoked: 1 }).where('family_id', '=', familyId).execute();
}

class Consents implements ConsentRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async find(uin: number, clientId: string): Promise<ConsentRecord | undefined> {
    const row = await this.db
      .selectFrom('consents')
      .selectAll()
      .where('uin', '=', uin)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return (
      row && {
        uin: Number(row.uin),
        clientId: row.client_id,
        scope: row.scope,
        grantedAt: Number(row.granted_at),
      }
    );
  }

  async upsert(consent: ConsentRecord): Promise<void> {
    await this.db
      .insertInto('consents')
      .values({
        uin: consent.uin,
        client_id: consent.clientId,
        scope: consent.scope,
        granted_at: consent.grantedAt,
      })
      .onConflict((oc) =>
        oc.columns(['uin', 'client_id']).doUpdateSet({ scope: consent.scope, granted_at: consent.grantedAt }),
      )
      .execute();
  }

  async delete(uin: number, clientId: string): Promise<boolean> {
    return changed(
      await this.db
        .deleteFrom('consents')
        .where('uin', '=', uin)
        .where('client_id', '=', clientId)
        .executeTakeFirst(),
    );
  }

  async listForUser(uin: number): Promise<ConsentWithApp[]> {
    const rows = await this.db
      .selectFrom('consents as c')
      .innerJoin('apps as a', 'a.client_id', 'c.client_id')
      .select(['c.uin', 'c.client_id', 'c.scope', 'c.granted_at', 'a.name', 'a.emoji'])
      .where('c.uin', '=', uin)
      .orderBy('c.granted_at', 'desc')
      .execute();
    return rows.map((row) => ({
      uin: Number(row.uin),
      clientId: row.client_id,
      scope: row.scope,
      grantedAt: Number(row.granted_at),
      name: row.name,
      emoji: row.emoji,
    }));
  }
}

class Throttles implements ThrottleRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async get(key: string): Promise<ThrottleState | undefined> {
    const row = await this.db
      .selectFrom('login_throttles')
      .selectAll()
      .where('key', '=', key)
      .executeTakeFirst();
    return (
      row && {
        failures: Number(row.failures),
        windowStart: Number(row.window_start),
        lockedUntil: Number(row.locked_until),
      }
    );
  }

  async hit(key: string, now: number, windowStartedBy: number): Promise<ThrottleState> {
    // One statement, so concurrent attempts are each counted (SET reads the row as it was before).
    const windowOver = sql<boolean>`login_throttles.window_start <= ${windowStartedBy}`;
    const row = await this.db
      .insertInto('login_throttles')
      .values({ key, failures: 1, window_start: now, locked_until: 0 })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          failures: sql<number>`case when ${windowOver} then 1 else login_throttles.failures + 1 end`,
          window_start: sql<number>`case when ${windowOver} then excluded.window_start else login_throttles.window_start end`,
        }),
      )
      .returning(['failures', 'window_start', 'locked_until'])
      .executeTakeFirstOrThrow();
    return {
      failures: Number(row.failures),
      windowStart: Number(row.window_start),
      lockedUntil: Number(row.locked_until),
    };
  }

  async lock(key: string, until: number): Promise<void> {
    await this.db
      .updateTable('login_throttles')
      .set({ locked_until: until })
      .where('key', '=', key)
      .where('locked_until', '<', until)
      .execute();
  }

  async refund(key: string): Promise<void> {
    await this.db
      .updateTable('login_throttles')
      .set({ failures: sql<number>`failures - 1` })
      .where('key', '=', key)
      .where('failures', '>', 0)
      .execute();
  }

  async delete(key: string): Promise<void> {
    await this.db.deleteFrom('login_throttles').where('key', '=', key).execute();
  }
}

class SigningKeys implements SigningKeyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async list(): Promise<SigningKeyRecord[]> {
    const rows = await this.db.selectFrom('signing_keys').selectAll().orderBy('created_at').execute();
    return rows.map((row) => ({
      kid: row.kid,
      alg: row.alg,
      privateJwk: row.private_jwk,
      publicJwk: row.public_jwk,
      createdAt: Number(row.created_at),
    }));
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

  async replacePrivateJwk(kid: string, from: string, to: string): Promise<void> {
    await this.db
      .updateTable('signing_keys')
      .set({ private_jwk: to })
      .where('kid', '=', kid)
      .where('private_jwk', '=', from)
      .execute();
  }
}

export class KyselyStore implements Store {
  readonly users: UserRepository;
  readonly apps: AppRepository;
  readonly sessions: SessionRepository;
  readonly codes: CodeRepository;
  readonly tokens: TokenRepository;
  readonly consents: ConsentRepository;
  readonly throttles: ThrottleRepository;
  readonly signingKeys: SigningKeyRepository;

  /**
   * `hotPaths` replaces the repositories whose queries are on the benchmarked paths (token exchange,
   * user information) with dialect-specific versions that skip the query builder.
   */
  constructor(
    readonly kind: 'sqlite' | 'postgres',
    protected readonly db: Kysely<Database>,
    hotPaths: Partial<Pick<Store, 'users' | 'apps' | 'codes' | 'tokens'>> = {},
    /** Runs before the connection closes (the SQLite checkpointer's last checkpoint). */
    private readonly beforeClose: () => Promise<void> = async () => undefined,
  ) {
    this.users = hotPaths.users ?? new Users(db);
    this.apps = hotPaths.apps ?? new Apps(db);
    this.sessions = new Sessions(db);
    this.codes = hotPaths.codes ?? new Codes(db);
    this.tokens = hotPaths.tokens ?? new Tokens(db);
    this.consents = new Consents(db);
    this.throttles = new Throttles(db);
    this.signingKeys = new SigningKeys(db);
  }

  async migrate(): Promise<string[]> {
    // On PostgreSQL the Migrator looks for its own tables in every schema; pin them to the schema this
    // connection works in, or a database shared by several schemas would see another one's lock table.
    const migrationTableSchema =
      this.kind === 'postgres'
        ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(this.db)).rows[0]?.schema
        : undefined;
    const migrator = new Migrator({
      db: this.db,
      provider: migrationProvider,
      ...(migrationTableSchema ? { migrationTableSchema } : {}),
    });
    for (let attempt = 1; ; attempt++) {
      const { error, results } = await migrator.migrateToLatest();
      if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
      if (!this.isPassingMigrationConflict(error) || attempt >= 5) {
        throw error instanceof Error ? error : new Error(String(error));
      }
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }

  /**
   * Conflicts that a second attempt resolves. SQLite has no migration lock across processes (two `campus-sso`
   * commands may start together on a new file), but each migration is one transaction, so the loser rolls
   * back whole and, on a second look, finds the work done. On PostgreSQL the Migrator lists the tables of
   * every schema, which fails (3F000) if another schema is dropped meanwhile.
   */
  private isPassingMigrationConflict(error: unknown): boolean {
    if (this.kind === 'sqlite') return /already exists|database is locked|SQLITE_BUSY/i.test(String(error));
    return (error as { code?: string }).code === '3F000';
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async purgeExpired(now: number): Promise<PurgeReport> {
    const count = (r: { numDeletedRows: bigint }): number => Number(r.numDeletedRows);
    const codes = await this.db
      .deleteFrom('authorization_codes')
      .where('expires_at', '<', now - USED_CODE_RETENTION_MS)
      .executeTakeFirst();
    const accessTokens = await this.db
      .deleteFrom('access_tokens')
      .where('expires_at', '<', now)
      .executeTakeFirst();
    const refreshTokens = await this.db
      .deleteFrom('refresh_tokens')
      .where('expires_at', '<', now)
      .executeTakeFirst();
    const sessions = await this.db.deleteFrom('sessions').where('expires_at', '<', now).executeTakeFirst();
    const throttles = await this.db
      .deleteFrom('login_throttles')
      .where('locked_until', '<', now)
      .where('window_start', '<', now - 3600 * 1000)
      .executeTakeFirst();
    return {
      codes: count(codes),
      accessTokens: count(accessTokens),
      refreshTokens: count(refreshTokens),
      sessions: count(sessions),
      throttles: count(throttles),
    };
  }

  async close(): Promise<void> {
    await this.beforeClose();
    await this.db.destroy();
  }
}
