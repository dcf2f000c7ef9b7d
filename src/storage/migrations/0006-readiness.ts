import { type Kysely, type Migration, sql } from 'kysely';
import { createTable } from './schema-helpers.js';

/**
 * One row that the readiness probe updates (GET /readyz, docs/operations.md#health-readiness-and-metrics):
 * a committed write is the only check that notices a database that still reads but can no longer write
 * (a full disk, a read-only standby after a failover).
 */
export const readiness: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await createTable(db, 'readiness', [
      ['id', 'integer', 'primary key'],
      ['checks', 'bigint', { notNullDefault: 0 }],
    ]);
    await sql`insert into readiness (id, checks) values (1, 0)`.execute(db);
  },
};
