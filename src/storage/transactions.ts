/**
 * `store.transaction(work)`: one database transaction across repositories (docs/architecture.md#transactions;
 * the models are fosite's `storage.Transactional` and Hydra's `persister.Transaction`). `work` gets the
 * repositories bound to that transaction, and everything it writes through them commits together or not at
 * all.
 *
 * SQLite has one connection per process. Kysely serializes its own queries on it with a lock, and a Kysely
 * transaction holds that lock from BEGIN to COMMIT; but the hand-written hot-path statements
 * (connection.ts) run on better-sqlite3 directly, and would run inside whatever transaction is open. So every
 * transaction on the connection closes the `SqliteGate` (the driver below does it at BEGIN and opens it at
 * COMMIT or ROLLBACK), and those statements wait for it to open (forDialect, sqliteTransaction). Transactions
 * begin IMMEDIATE: they take the write lock at once rather than fail to upgrade a read lock later. While
 * another process holds that lock, the BEGIN, like any statement outside a transaction, is tried again on a
 * timer (sqlite-busy.ts), with the gate open meanwhile.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CompiledQuery,
  type DatabaseConnection,
  type QueryResult,
  type Driver,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely';
import { whileBusy } from './sqlite-busy.js';

/** Thrown when the code inside a transaction uses the Store itself instead of the repositories it was given. */
export class OutsideTransaction extends Error {
  override readonly name = 'OutsideTransaction';

  constructor() {
    super(
      'the Store was used inside store.transaction: use the repositories the transaction hands its work ' +
        '(on SQLite this would wait for the transaction to end, forever)',
    );
  }
}

/** The transaction the current code runs in, while it runs (its `active` turns false at the end). */
const current = new AsyncLocalStorage<{ active: boolean }>();

/** Runs `work` as the body of a transaction, so that a use of the Store itself inside it is refused. */
export async function asTransactionBody<T>(work: () => Promise<T>): Promise<T> {
  const scope = { active: true };
  try {
    return await current.run(scope, work);
  } finally {
    scope.active = false;
  }
}

/** Throws OutsideTransaction inside a transaction's body. */
export function assertOutsideTransactionBody(): void {
  if (current.getStore()?.active === true) throw new OutsideTransaction();
}

/** Whether the one SQLite connection is free of open transactions; see the module comment. */
export class SqliteGate {
  private closed: Promise<void> | undefined;
  private release: (() => void) | undefined;

  get open(): boolean {
    return this.closed === undefined;
  }

  close(): void {
    this.closed = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  reopen(): void {
    const release = this.release;
    this.closed = undefined;
    this.release = undefined;
    release?.();
  }

  /** Resolves when no transaction is open; refuses a caller that is itself inside a transaction's body. */
  async whenOpen(): Promise<void> {
    assertOutsideTransactionBody();
    while (this.closed !== undefined) await this.closed;
  }
}

/** Kysely's SQLite driver, whose transactions begin IMMEDIATE and close the gate while they are open. */
class GatedSqliteDriver extends SqliteDriver {
  constructor(
    config: SqliteDialectConfig,
    private readonly gate: SqliteGate,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    // The body of a transaction holds the connection: asking for it again would wait forever.
    assertOutsideTransactionBody();
    const connection = await super.acquireConnection();
    const gate = this.gate;
    return {
      // Outside a transaction (the gate open) a statement that found the lock taken changed nothing.
      executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> =>
        gate.open ? whileBusy(() => connection.executeQuery<R>(query)) : connection.executeQuery<R>(query),
      streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
    };
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await whileBusy(async () => {
      this.gate.close();
      try {
        await connection.executeQuery(CompiledQuery.raw('begin immediate'));
      } catch (error) {
        this.gate.reopen();
        throw error;
      }
    });
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    // A failed commit leaves the transaction open: Kysely rolls it back, which opens the gate.
    await connection.executeQuery(CompiledQuery.raw('commit'));
    this.gate.reopen();
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw('rollback'));
    } finally {
      this.gate.reopen();
    }
  }
}

/** Kysely's SqliteDialect with GatedSqliteDriver. */
export class GatedSqliteDialect extends SqliteDialect {
  constructor(
    private readonly config: SqliteDialectConfig,
    private readonly gate: SqliteGate,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new GatedSqliteDriver(this.config, this.gate);
  }
}
