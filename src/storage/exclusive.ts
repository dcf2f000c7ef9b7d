/**
 * Work that only one instance may do at a time (docs/operations.md#the-schools-directory-ldap--active-directory:
 * the directory sync). On PostgreSQL a session-level advisory lock, held on one connection for the whole of the
 * work, keyed by the name and the schema (two deployments sharing a database do not block each other); another
 * instance that asks meanwhile is told the work is running elsewhere. On SQLite, one server per database file:
 * one at a time within this process.
 */
import { sql } from 'kysely';
import type { Connection } from './connection.js';
import type { Exclusive } from './records.js';

export class ExclusiveWork {
  private readonly running = new Set<string>();

  constructor(private readonly connection: Connection) {}

  async run<T>(name: string, work: () => Promise<T>): Promise<Exclusive<T>> {
    if (this.running.has(name)) return { ran: false };
    this.running.add(name);
    try {
      if (this.connection.kind === 'sqlite') return { ran: true, value: await work() };
      const key = sql`hashtext(${`campus-sso:${name}:`} || current_schema())`;
      return await this.connection.db.connection().execute(async (db) => {
        const { rows } = await sql<{
          locked: boolean;
        }>`select pg_try_advisory_lock(${key}) as locked`.execute(db);
        if (rows[0]?.locked !== true) return { ran: false };
        try {
          return { ran: true, value: await work() };
        } finally {
          await sql`select pg_advisory_unlock(${key})`.execute(db);
        }
      });
    } finally {
      this.running.delete(name);
    }
  }
}
