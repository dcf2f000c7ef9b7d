/**
 * The Store (store.ts) over SQLite or PostgreSQL: the entity modules of this folder, composed, and the work
 * that spans them (migrations, the purge). Every query lives in the entity module of the table it serves
 * (docs/architecture.md#storage).
 */
import { Migrator, sql } from 'kysely';
import { Apps } from './apps.js';
import { Codes } from './codes.js';
import type { Connection } from './connection.js';
import { Consents } from './consents.js';
import { migrationProvider } from './migrations/index.js';
import { LogoutSignal, Logouts } from './logouts.js';
import { Sessions } from './sessions.js';
import { SigningKeys } from './signing-keys.js';
import type { PurgeReport, Store } from './store.js';
import { Throttles } from './throttle.js';
import { Tokens } from './tokens.js';
import { Users } from './users.js';

export class SqlStore implements Store {
  readonly kind: Connection['kind'];
  readonly users: Users;
  readonly apps: Apps;
  readonly sessions: Sessions;
  readonly codes: Codes;
  readonly tokens: Tokens;
  readonly consents: Consents;
  readonly throttles: Throttles;
  readonly signingKeys: SigningKeys;
  readonly logouts: Logouts;

  constructor(
    private readonly connection: Connection,
    /** Runs before the connection closes (the SQLite checkpointer's last checkpoint). */
    private readonly beforeClose: () => Promise<void> = async () => undefined,
  ) {
    this.kind = connection.kind;
    this.users = new Users(connection);
    this.apps = new Apps(connection);
    const logoutsQueued = new LogoutSignal();
    this.sessions = new Sessions(connection, logoutsQueued);
    this.codes = new Codes(connection);
    this.tokens = new Tokens(connection);
    this.consents = new Consents(connection);
    this.throttles = new Throttles(connection);
    this.signingKeys = new SigningKeys(connection);
    this.logouts = new Logouts(connection, logoutsQueued);
  }

  async migrate(): Promise<string[]> {
    const db = this.connection.db;
    // On PostgreSQL the Migrator looks for its own tables in every schema; pin them to the schema this
    // connection works in, or a database shared by several schemas would see another one's lock table.
    const migrationTableSchema =
      this.kind === 'postgres'
        ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
        : undefined;
    const migrator = new Migrator({
      db,
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
    if (this.kind === 'sqlite')
      return /already exists|duplicate column|database is locked|SQLITE_BUSY/i.test(String(error));
    return (error as { code?: string }).code === '3F000';
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.connection.db);
  }

  async purgeExpired(now: number): Promise<PurgeReport> {
    const codes = await this.codes.purgeExpired(now);
    const { accessTokens, refreshTokens } = await this.tokens.purgeExpired(now);
    const sessions = await this.sessions.purgeExpired(now);
    const throttles = await this.throttles.purgeExpired(now);
    const logoutDeliveries = await this.logouts.purgeExpired(now);
    return { codes, accessTokens, refreshTokens, sessions, throttles, logoutDeliveries };
  }

  async close(): Promise<void> {
    await this.beforeClose();
    await this.connection.db.destroy();
  }
}
