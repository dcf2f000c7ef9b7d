/**
 * The Store (store.ts) over SQLite or PostgreSQL: the entity modules of this folder, composed, and the work
 * that spans them (migrations, the purge). Every query lives in the entity module of the table it serves
 * (docs/architecture.md#storage).
 */
import { Migrator, sql } from 'kysely';
import { Apps } from './apps.js';
import { AuditEvents } from './audit.js';
import { UserRoles } from './roles.js';
import { CasTickets } from './cas-tickets.js';
import { Codes } from './codes.js';
import { type Connection, transactionQuerier } from './connection.js';
import { Consents } from './consents.js';
import { ExclusiveWork } from './exclusive.js';
import { DeviceAuthorizations } from './device-authorizations.js';
import { PhoneSignIns } from './phone-sign-ins.js';
import { migrationProvider } from './migrations/index.js';
import { PendingSignIns } from './pending-sign-ins.js';
import { SecondFactors } from './second-factors.js';
import { Readiness } from './readiness.js';
import { ResetCodes } from './reset-codes.js';
import { LogoutSignal, Logouts } from './logouts.js';
import { ServiceTokens } from './service-tokens.js';
import { Sessions } from './sessions.js';
import { SigningKeys } from './signing-keys.js';
import type { Exclusive, PurgeReport, Repositories, Store } from './store.js';
import { asTransactionBody, assertOutsideTransactionBody } from './transactions.js';
import { Throttles } from './throttle.js';
import { Tokens } from './tokens.js';
import { Users } from './users.js';
import { WebAuthnChallenges } from './webauthn-challenges.js';

const DAY_MS = 24 * 3600 * 1000;
/** How long an instance retries while another one migrates the same database (sql-store.ts migrate()). */
const MIGRATION_WAIT_MS = 60_000;

/** The repositories over `connection`; sign-outs through them tell `logoutsQueued`. */
function repositoriesOver(connection: Connection, logoutsQueued: LogoutSignal) {
  return {
    users: new Users(connection),
    apps: new Apps(connection),
    sessions: new Sessions(connection, logoutsQueued),
    codes: new Codes(connection),
    tokens: new Tokens(connection),
    consents: new Consents(connection),
    throttles: new Throttles(connection),
    signingKeys: new SigningKeys(connection),
    secondFactors: new SecondFactors(connection),
    webAuthnChallenges: new WebAuthnChallenges(connection),
    pendingSignIns: new PendingSignIns(connection),
    resetCodes: new ResetCodes(connection),
    audit: new AuditEvents(connection),
    logouts: new Logouts(connection, logoutsQueued),
    casTickets: new CasTickets(connection),
    deviceAuthorizations: new DeviceAuthorizations(connection),
    phoneSignIns: new PhoneSignIns(connection),
    roles: new UserRoles(connection),
    serviceTokens: new ServiceTokens(connection),
  } satisfies Repositories;
}

export class SqlStore implements Store {
  readonly kind: Connection['kind'];
  // The repositories, assigned in the constructor from repositoriesOver (the same a transaction gets).
  declare readonly users: Users;
  declare readonly apps: Apps;
  declare readonly sessions: Sessions;
  declare readonly codes: Codes;
  declare readonly tokens: Tokens;
  declare readonly consents: Consents;
  declare readonly throttles: Throttles;
  declare readonly signingKeys: SigningKeys;
  declare readonly secondFactors: SecondFactors;
  declare readonly webAuthnChallenges: WebAuthnChallenges;
  declare readonly pendingSignIns: PendingSignIns;
  declare readonly resetCodes: ResetCodes;
  declare readonly audit: AuditEvents;
  declare readonly logouts: Logouts;
  declare readonly casTickets: CasTickets;
  declare readonly deviceAuthorizations: DeviceAuthorizations;
  declare readonly phoneSignIns: PhoneSignIns;
  private readonly readiness: Readiness;
  private readonly exclusiveWork: ExclusiveWork;
  declare readonly roles: UserRoles;
  declare readonly serviceTokens: ServiceTokens;
  private readonly logoutsQueued = new LogoutSignal();

  constructor(
    private readonly connection: Connection,
    /** Runs before the connection closes (the SQLite checkpointer's last checkpoint). */
    private readonly beforeClose: () => Promise<void> = async () => undefined,
  ) {
    this.kind = connection.kind;
    Object.assign(this, repositoriesOver(connection, this.logoutsQueued));
    this.readiness = new Readiness(connection);
    this.exclusiveWork = new ExclusiveWork(connection);
  }

  exclusive<T>(name: string, work: () => Promise<T>): Promise<Exclusive<T>> {
    return this.exclusiveWork.run(name, work);
  }

  /**
   * See Store.transaction. On SQLite the commit is made at `synchronous = FULL`, as writeDurably's are
   * (connection.ts): set before BEGIN, since SQLite refuses to change it inside a transaction, while this
   * holds the one connection, so it applies to this transaction alone (or, while the BEGIN waits for another
   * process's lock, sqlite-busy.ts, also to a batch that gets the lock first: never less durable).
   */
  async transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T> {
    assertOutsideTransactionBody();
    // Deliveries queued inside are announced after the commit: before it, no worker could claim them.
    const queuedInside = new LogoutSignal();
    let queued = false;
    queuedInside.subscribe(() => {
      queued = true;
    });
    const connection = this.connection;
    let result: T;
    if (connection.kind === 'sqlite') {
      const { database } = connection;
      result = await connection.db.connection().execute(async (db) => {
        database.pragma('synchronous = FULL');
        try {
          return await db.transaction().execute((trx) => {
            const tx = { kind: 'sqlite', db: trx, database, gate: undefined, inTransaction: true } as const;
            return asTransactionBody(() => work(repositoriesOver(tx, queuedInside)));
          });
        } finally {
          database.pragma('synchronous = NORMAL');
        }
      });
    } else {
      result = await connection.db.transaction().execute((trx) => {
        const tx = { kind: 'postgres', db: trx, pool: transactionQuerier(trx), inTransaction: true } as const;
        return asTransactionBody(() => work(repositoriesOver(tx, queuedInside)));
      });
    }
    if (queued) this.logoutsQueued.notify();
    return result;
  }

  /**
   * The Migrator over this connection. On PostgreSQL it looks for its own tables in every schema; they are
   * pinned to the schema this connection works in, or a database shared by several schemas would see another
   * one's lock table.
   */
  private async migrator(): Promise<Migrator> {
    const db = this.connection.db;
    const migrationTableSchema =
      this.kind === 'postgres'
        ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
        : undefined;
    return new Migrator({
      db,
      provider: migrationProvider,
      // The migrations landed out of name order, so a database may have run a later name before an earlier
      // one; each migration is order-independent, and the pending ones run by name
      // (docs/architecture.md#migrations).
      allowUnorderedMigrations: true,
      ...(migrationTableSchema ? { migrationTableSchema } : {}),
    });
  }

  async migrate(): Promise<string[]> {
    const migrator = await this.migrator();
    return this.pastMigrationConflicts(async () => {
      const { error, results } = await migrator.migrateToLatest();
      if (error) throw error instanceof Error ? error : new Error(String(error));
      return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    });
  }

  /** Runs `attempt` again, with a growing pause, while it fails with a passing conflict, for up to a minute. */
  private async pastMigrationConflicts<T>(attempt: () => Promise<T>): Promise<T> {
    const giveUpAt = Date.now() + MIGRATION_WAIT_MS;
    for (let tries = 1; ; tries++) {
      try {
        return await attempt();
      } catch (error) {
        if (!this.isPassingMigrationConflict(error) || Date.now() >= giveUpAt) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(50 * tries, 500)));
    }
  }

  /**
   * Conflicts that a later attempt resolves. SQLite has no migration lock across processes (two `campus-sso`
   * commands may start together on a file), but the pending migrations run in one transaction
   * (open-store.ts): the loser's first write is refused as busy while the winner migrates, it rolls back whole
   * and, once the winner has committed, finds the work done. On PostgreSQL the Migrator lists the tables of
   * every schema, which fails (3F000) if another schema is dropped meanwhile.
   */
  private isPassingMigrationConflict(error: unknown): boolean {
    if (this.kind === 'sqlite') return /database is locked|SQLITE_BUSY/i.test(String(error));
    return (error as { code?: string }).code === '3F000';
  }

  async pendingMigrations(): Promise<string[]> {
    const migrator = await this.migrator();
    // Listing reads the tables of every schema, as migrating does: it passes the same conflicts.
    const migrations = await this.pastMigrationConflicts(() => migrator.getMigrations());
    return migrations.filter((migration) => migration.executedAt === undefined).map((m) => m.name);
  }

  async ping(): Promise<void> {
    await this.readiness.probe();
  }

  async purgeExpired(now: number, auditRetentionDays?: number): Promise<PurgeReport> {
    const codes = await this.codes.purgeExpired(now);
    const { accessTokens: userAccessTokens, refreshTokens } = await this.tokens.purgeExpired(now);
    // Service tokens are access tokens too (an app's own, RFC 6749 §4.4): counted with them.
    const accessTokens = userAccessTokens + (await this.serviceTokens.purgeExpired(now));
    const sessions = await this.sessions.purgeExpired(now);
    const throttles = await this.throttles.purgeExpired(now);
    // Unfinished ceremonies are not worth a line in the report.
    await this.webAuthnChallenges.purgeExpired(now);
    await this.pendingSignIns.purgeExpired(now);
    await this.deviceAuthorizations.purgeExpired(now);
    await this.phoneSignIns.purgeExpired(now);
    const resetCodes = await this.resetCodes.purgeExpired(now);
    const auditEvents =
      auditRetentionDays === undefined ? 0 : await this.audit.purgeBefore(now - auditRetentionDays * DAY_MS);
    const logoutDeliveries = await this.logouts.purgeExpired(now);
    await this.casTickets.purgeExpired(now);
    return {
      codes,
      accessTokens,
      refreshTokens,
      sessions,
      throttles,
      resetCodes,
      auditEvents,
      logoutDeliveries,
    };
  }

  async close(): Promise<void> {
    await this.beforeClose();
    await this.connection.db.destroy();
  }
}
