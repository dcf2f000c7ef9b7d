/**
 * The readiness table: the probe of GET /readyz (docs/operations.md#health-readiness-and-metrics).
 *
 * A read alone (`select 1`) stayed green while every write failed on a full disk. The probe commits a write:
 * one row, updated in place. On SQLite it appends one page to the WAL, the same place every request's write
 * goes, so it fails exactly when they do (measured on a full 2 MiB tmpfs: SQLITE_FULL for both; a write in a
 * transaction that is rolled back never reaches the disk and succeeded). On PostgreSQL it also fails on a
 * read-only standby (an old primary after a failover). Several instances update the same row; each update is
 * a single-row autocommit statement, so they wait on each other for microseconds at most.
 */
import { sql } from 'kysely';
import { Repository } from './connection.js';

export class Readiness extends Repository {
  /** Reads and commits a write; throws what the database threw when it cannot. */
  async probe(): Promise<void> {
    const { numAffectedRows } = await sql`update readiness set checks = checks + 1 where id = 1`.execute(
      this.db,
    );
    if (numAffectedRows !== 1n) throw new Error('the readiness row is missing: run the migrations');
  }
}
