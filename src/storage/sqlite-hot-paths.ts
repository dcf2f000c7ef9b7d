/**
 * SQLite versions of the benchmarked queries (user information, client authentication, code exchange),
 * as prepared better-sqlite3 statements: the query builder costs ~10× the query itself here.
 *
 * Code redemptions are group-committed: those that arrive in the same turn of the event loop are written in
 * one transaction (should one fail, each runs again alone, so one failure cannot undo another), and each
 * caller is answered only after that transaction committed. They share the connection Kysely uses; that is safe because
 * better-sqlite3 is synchronous, so a Kysely transaction never leaves the event loop half-way through.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely, Selectable } from 'kysely';
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
import type {
  AccessTokenRecord,
  ActiveTokenOwner,
  AppRecord,
  CodeWithGrantor,
  RefreshTokenRecord,
  UserRecord,
} from './store.js';

type Statement = BetterSqlite3.Statement;

/** Prepares on first use: the tables exist only once migrations have run. */
function lazy(database: BetterSqlite3.Database, sql: string): () => Statement {
  let statement: Statement | undefined;
  return () => (statement ??= database.prepare(sql));
}

const ACCESS_TOKEN_COLUMNS =
  'token_hash, client_id, uin, scope, code_hash, family_id, created_at, expires_at, revoked';
const REFRESH_TOKEN_COLUMNS =
  'token_hash, family_id, client_id, uin, scope, auth_time, code_hash, created_at, expires_at, rotated_at, revoked';

/** The code exchange's read: the code, and its user's columns under a `user_` prefix (toCodeWithGrantor). */
const CODE_WITH_GRANTOR = `
  select c.*, u.password_hash as user_password_hash, u.user_group, u.created_at as user_created_at,
         u.disabled as user_disabled
    from authorization_codes c
    left join users u on u.uin = c.uin
   where c.code_hash = ?`;

/** get-user-info: the token with its user, only if unrevoked, unexpired, and its user and app enabled. */
const ACTIVE_TOKEN_OWNER = `
  select t.client_id, t.scope, t.created_at, t.expires_at, u.uin, u.user_group, u.created_at as user_created_at
    from access_tokens t
    join users u on u.uin = t.uin
    join apps a on a.client_id = t.client_id
   where t.token_hash = ? and t.revoked = 0 and t.expires_at > ?
     and u.disabled = 0 and a.disabled = 0`;

interface Job<T> {
  readonly work: () => T;
  readonly resolve: (value: T) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Runs write jobs submitted in one event-loop turn in one transaction; answers each after the commit.
 * The happy path has no savepoints (two extra statements a job): should any job throw, the whole group rolls
 * back and every job runs again in a transaction of its own, so one failure cannot undo another.
 */
class GroupCommit {
  private queue: Job<unknown>[] = [];
  private readonly all: BetterSqlite3.Transaction<(jobs: Job<unknown>[]) => unknown[]>;
  private readonly one: BetterSqlite3.Transaction<(job: Job<unknown>) => unknown>;

  constructor(database: BetterSqlite3.Database) {
    this.all = database.transaction((jobs: Job<unknown>[]) => jobs.map((job) => job.work()));
    this.one = database.transaction((job: Job<unknown>) => job.work());
  }

  submit<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.queue.length === 0) setImmediate(() => this.flush());
      this.queue.push({ work, resolve, reject } as Job<unknown>);
    });
  }

  private flush(): void {
    const jobs = this.queue;
    this.queue = [];
    let values: unknown[];
    try {
      values = this.all.immediate(jobs);
    } catch {
      for (const job of jobs) this.runAlone(job);
      return;
    }
    jobs.forEach((job, i) => job.resolve(values[i]));
  }

  private runAlone(job: Job<unknown>): void {
    try {
      job.resolve(this.one.immediate(job));
    } catch (error) {
      job.reject(error);
    }
  }
}

export class SqliteUsers extends Users {
  private readonly findStatement: () => Statement;

  constructor(db: Kysely<Database>, database: BetterSqlite3.Database) {
    super(db);
    this.findStatement = lazy(database, 'select * from users where uin = ?');
  }

  override async find(uin: number): Promise<UserRecord | undefined> {
    const row = this.findStatement().get(uin) as Selectable<Database['users']> | undefined;
    return row && toUser(row);
  }
}

export class SqliteApps extends Apps {
  private readonly findStatement: () => Statement;

  constructor(db: Kysely<Database>, database: BetterSqlite3.Database) {
    super(db);
    this.findStatement = lazy(database, 'select * from apps where client_id = ?');
  }

  override async find(clientId: string): Promise<AppRecord | undefined> {
    const row = this.findStatement().get(clientId) as Selectable<Database['apps']> | undefined;
    return row && toApp(row);
  }
}

export class SqliteCodes extends Codes {
  private readonly withGrantorStatement: () => Statement;

  constructor(db: Kysely<Database>, database: BetterSqlite3.Database) {
    super(db);
    this.withGrantorStatement = lazy(database, CODE_WITH_GRANTOR);
  }

  override async findWithGrantor(codeHash: string): Promise<CodeWithGrantor | undefined> {
    const row = this.withGrantorStatement().get(codeHash) as CodeWithGrantorRow | undefined;
    return row && toCodeWithGrantor(row);
  }
}

export class SqliteTokens extends Tokens {
  private readonly ownerStatement: () => Statement;
  private readonly markCodeUsed: () => Statement;
  private readonly insertAccessToken: () => Statement;
  private readonly insertRefreshToken: () => Statement;
  private readonly groupCommit: GroupCommit;

  constructor(db: Kysely<Database>, database: BetterSqlite3.Database) {
    super(db);
    this.ownerStatement = lazy(database, ACTIVE_TOKEN_OWNER);
    this.markCodeUsed = lazy(
      database,
      'update authorization_codes set used_at = ? where code_hash = ? and used_at is null',
    );
    this.insertAccessToken = lazy(
      database,
      `insert into access_tokens (${ACCESS_TOKEN_COLUMNS}) values (${placeholders(ACCESS_TOKEN_COLUMNS)})`,
    );
    this.insertRefreshToken = lazy(
      database,
      `insert into refresh_tokens (${REFRESH_TOKEN_COLUMNS}) values (${placeholders(REFRESH_TOKEN_COLUMNS)})`,
    );
    this.groupCommit = new GroupCommit(database);
  }

  override async findActiveOwner(tokenHash: string, now: number): Promise<ActiveTokenOwner | undefined> {
    const row = this.ownerStatement().get(tokenHash, now) as ActiveTokenOwnerRow | undefined;
    return row && toActiveTokenOwner(row);
  }

  override redeemCode(
    codeHash: string,
    now: number,
    accessToken: AccessTokenRecord,
    refreshToken: RefreshTokenRecord | undefined,
  ): Promise<boolean> {
    return this.groupCommit.submit(() => {
      if (this.markCodeUsed().run(now, codeHash).changes === 0) return false;
      this.insertAccessToken().run(accessTokenRow(accessToken));
      if (refreshToken) this.insertRefreshToken().run(refreshTokenRow(refreshToken));
      return true;
    });
  }
}

/** Named parameters (`@token_hash, …`) bound from the row object, so column order cannot drift. */
function placeholders(columns: string): string {
  return columns
    .split(',')
    .map((column) => `@${column.trim()}`)
    .join(', ');
}
