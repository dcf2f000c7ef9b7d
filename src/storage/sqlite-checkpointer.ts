/**
 * WAL checkpoints on a timer instead of inside commits. By default SQLite checkpoints inside whichever commit
 * pushes the WAL past 1,000 pages, so one unlucky request pays for copying pages back into the database file
 * and the fsync. The serving connection turns that off (`wal_autocheckpoint = 0`) and this runs a PASSIVE
 * checkpoint once a second between requests instead: a page rewritten by many commits in that second is
 * copied once. (A worker thread could take even that off the event loop, but its V8 isolate costs ~12 MB of
 * memory for a few milliseconds a second.)
 */
import type BetterSqlite3 from 'better-sqlite3';

export class SqliteCheckpointer {
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly database: BetterSqlite3.Database,
    intervalMs = 1000,
  ) {
    this.timer = setInterval(() => this.checkpoint('PASSIVE'), intervalMs);
    this.timer.unref();
  }

  /** A last checkpoint that also empties the WAL file. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.checkpoint('TRUNCATE');
  }

  private checkpoint(mode: 'PASSIVE' | 'TRUNCATE'): void {
    // Never inside a transaction of store.transaction (transactions.ts): the next tick checkpoints.
    if (this.database.inTransaction) return;
    try {
      this.database.pragma(`wal_checkpoint(${mode})`);
    } catch {
      // Busy or closed: the next tick (or the next start) checkpoints; the WAL stays consistent meanwhile.
    }
  }
}
