/**
 * The sessions table: its queries (docs/architecture.md#storage). Every way of ending sessions goes through
 * `end`, which queues their back-channel logouts in the same transaction (logouts.ts).
 */
import type { Kysely } from 'kysely';
import { columns } from './columns.js';
import { Repository } from './connection.js';
import type { Connection } from './connection.js';
import { type LogoutSignal, queueLogouts } from './logouts.js';
import type { Database, Row } from './schema.js';
import type { SessionRecord, SessionRepository } from './store.js';

/** `amr` is stored space-separated (RFC 8176 values contain no spaces); null stays null. */
export function splitAmr(stored: string | null): string[] | null {
  return stored === null ? null : stored.split(' ').filter((method) => method !== '');
}

export function joinAmr(amr: readonly string[] | null): string | null {
  return amr === null ? null : amr.join(' ');
}

function toSession(row: Row<'sessions'>): SessionRecord {
  return {
    idHash: row.id_hash,
    sid: row.sid,
    uin: Number(row.uin),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    lastSeenAt: Number(row.last_seen_at),
    idleExpiresAt: Number(row.idle_expires_at),
    ip: row.ip,
    userAgent: row.user_agent,
    shared: row.shared === 1,
    amr: splitAmr(row.amr) ?? [],
  };
}

function sessionRow(session: SessionRecord): Row<'sessions'> {
  const { amr, ...fields } = session;
  return { ...columns(fields), amr: amr.join(' ') };
}

/** Which sessions a delete ends. */
type Selection = { idHash: string } | { uin: number; sid: string } | { uin: number; keepIdHash?: string };

export class Sessions extends Repository implements SessionRepository {
  constructor(
    connection: Connection,
    private readonly queued: LogoutSignal,
  ) {
    super(connection);
  }

  async insert(session: SessionRecord): Promise<void> {
    await this.db.insertInto('sessions').values(sessionRow(session)).execute();
  }

  async findActive(idHash: string, now: number): Promise<SessionRecord | undefined> {
    const row = await this.activeAt(now).where('id_hash', '=', idHash).executeTakeFirst();
    return row && toSession(row);
  }

  touch(idHash: string, now: number, idleExpiresAt: number): Promise<void> {
    return this.updateBy('sessions', 'id_hash', idHash, {
      last_seen_at: now,
      idle_expires_at: idleExpiresAt,
    });
  }

  setAmr(idHash: string, amr: readonly string[]): Promise<void> {
    return this.updateBy('sessions', 'id_hash', idHash, { amr: amr.join(' ') });
  }

  async listForUser(uin: number, now: number): Promise<SessionRecord[]> {
    const rows = await this.activeAt(now).where('uin', '=', uin).orderBy('created_at', 'desc').execute();
    return rows.map(toSession);
  }

  /** The sessions neither past their absolute end nor idled out at `now`. */
  private activeAt(now: number) {
    return this.db
      .selectFrom('sessions')
      .selectAll()
      .where('expires_at', '>', now)
      .where('idle_expires_at', '>', now);
  }

  async delete(idHash: string): Promise<boolean> {
    return (await this.end({ idHash })) > 0;
  }

  async deleteBySid(uin: number, sid: string): Promise<boolean> {
    return (await this.end({ uin, sid })) > 0;
  }

  async deleteForUser(uin: number, keepIdHash?: string): Promise<number> {
    return this.end(keepIdHash === undefined ? { uin } : { uin, keepIdHash });
  }

  /** Ends the selected sessions and queues their back-channel logouts, in one transaction. */
  private async end(selection: Selection): Promise<number> {
    const { ended, queued } = await this.atomically(async (trx) => {
      const sids = await deleteSessions(trx, selection);
      return { ended: sids.length, queued: await queueLogouts(trx, sids) };
    });
    if (queued > 0) this.queued.notify();
    return ended;
  }

  /** Deletes the sessions that expired or idled out at `now`; answers how many. */
  async purgeExpired(now: number): Promise<number> {
    const result = await this.db
      .deleteFrom('sessions')
      .where((eb) => eb.or([eb('expires_at', '<', now), eb('idle_expires_at', '<', now)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** Deletes the selected sessions; answers their sids. */
async function deleteSessions(trx: Kysely<Database>, selection: Selection): Promise<string[]> {
  let query = trx.deleteFrom('sessions');
  if ('idHash' in selection) {
    query = query.where('id_hash', '=', selection.idHash);
  } else {
    query = query.where('uin', '=', selection.uin);
    if ('sid' in selection) query = query.where('sid', '=', selection.sid);
    else if (selection.keepIdHash !== undefined) query = query.where('id_hash', '!=', selection.keepIdHash);
  }
  const rows = await query.returning('sid').execute();
  return rows.map((row) => row.sid);
}
