/**
 * The session_apps and logout_deliveries tables (docs/architecture.md#storage): OpenID Connect Back-Channel
 * Logout 1.0. An id_token issued in a session records its app in session_apps; ending the session turns those
 * rows into logout_deliveries (for apps with a `backchannel_logout_uri`) in the transaction that ends it, and
 * any instance's delivery worker claims and sends them (src/oauth/logout-delivery.ts).
 */
import { type Kysely, sql } from 'kysely';
import { queueCasLogouts } from './cas-tickets.js';
import { Repository } from './connection.js';
import type { Connection } from './connection.js';
import type { Database } from './schema.js';
import type { LogoutDelivery, LogoutDeliveryOutcome, LogoutRepository } from './store.js';

/** Finished deliveries are kept a week, for the record. */
const FINISHED_RETENTION_MS = 7 * 24 * 3600 * 1000;

/** Tells the delivery worker of this process that a sign-out queued deliveries. */
export class LogoutSignal {
  private readonly listeners = new Set<() => void>();

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(): void {
    for (const listener of this.listeners) listener();
  }
}

/**
 * Queues a logout for every app that received an id_token in the ended sessions `sids` and has a
 * back-channel logout URI, and forgets those sessions' apps; answers how many were queued. Runs inside the
 * transaction that ends the sessions.
 */
export async function queueLogouts(trx: Kysely<Database>, sids: readonly string[]): Promise<number> {
  if (sids.length === 0) return 0;
  const result = await trx
    .insertInto('logout_deliveries')
    .columns(['sid', 'client_id', 'uin'])
    .expression((eb) =>
      eb
        .selectFrom('session_apps as s')
        .innerJoin('apps as a', 'a.client_id', 's.client_id')
        .select(['s.sid', 's.client_id', 's.uin'])
        .where('s.sid', 'in', sids)
        .where('a.backchannel_logout_uri', 'is not', null),
    )
    .onConflict((oc) => oc.columns(['sid', 'client_id']).doNothing())
    .executeTakeFirst();
  await trx.deleteFrom('session_apps').where('sid', 'in', sids).execute();
  // The same queue carries CAS single logouts (docs/interface.md#cas-protocol).
  const cas = await queueCasLogouts(trx, sids);
  return Number(result.numInsertedOrUpdatedRows ?? 0n) + cas;
}

interface ClaimedRow {
  sid: string;
  client_id: string;
  uin: number | string;
  attempts: number | string;
  first_attempt_at: number | string | null;
  kind: string;
  cas_service: string | null;
  cas_ticket: string | null;
}

export class Logouts extends Repository implements LogoutRepository {
  constructor(
    connection: Connection,
    private readonly queued: LogoutSignal,
  ) {
    super(connection);
  }

  async recordIdToken(sid: string, clientId: string, uin: number, now: number): Promise<void> {
    // Recorded only while the session lives; if it ended meanwhile (signed out between the authorization
    // and the code exchange), the app is told at once instead.
    const recorded = await sql`
      insert into session_apps (sid, client_id, uin, created_at)
      select cast(${sid} as text), cast(${clientId} as text), cast(${uin} as bigint), cast(${now} as bigint)
       where exists (select 1 from sessions where sid = ${sid})
      on conflict (sid, client_id) do nothing`.execute(this.db);
    if (Number(recorded.numAffectedRows ?? 0n) > 0) return;
    const live = await this.db.selectFrom('sessions').select('sid').where('sid', '=', sid).executeTakeFirst();
    if (live) return; // Recorded already.
    const queued = await this.db
      .insertInto('logout_deliveries')
      .columns(['sid', 'client_id', 'uin'])
      .expression((eb) =>
        eb
          .selectFrom('apps')
          .select([
            sql<string>`cast(${sid} as text)`.as('sid'),
            'client_id',
            sql<number>`cast(${uin} as bigint)`.as('uin'),
          ])
          .where('client_id', '=', clientId)
          .where('backchannel_logout_uri', 'is not', null),
      )
      .onConflict((oc) => oc.columns(['sid', 'client_id']).doNothing())
      .executeTakeFirst();
    if (Number(queued.numInsertedOrUpdatedRows ?? 0n) > 0) this.queued.notify();
  }

  async claimDue(now: number, leaseUntil: number, limit: number): Promise<LogoutDelivery[]> {
    // PostgreSQL: rows another instance is claiming right now are skipped, not waited for; SQLite has one
    // writer at a time, so the update is atomic as it stands.
    const lock = this.connection.kind === 'postgres' ? sql`for update skip locked` : sql``;
    const result = await sql<ClaimedRow>`
      update logout_deliveries
         set lease_until = ${leaseUntil}, attempts = attempts + 1,
             first_attempt_at = coalesce(first_attempt_at, ${now})
       where (sid, client_id) in (
               select sid, client_id from logout_deliveries
                where status = 'pending' and next_attempt_at <= ${now} and lease_until <= ${now}
                order by next_attempt_at
                limit ${limit} ${lock})
      returning sid, client_id, uin, attempts, first_attempt_at, kind, cas_service, cas_ticket`.execute(
      this.db,
    );
    return result.rows.map((row) => ({
      sid: row.sid,
      clientId: row.client_id,
      uin: Number(row.uin),
      attempts: Number(row.attempts),
      firstAttemptAt: row.first_attempt_at === null ? null : Number(row.first_attempt_at),
      kind: row.kind === 'cas' ? 'cas' : 'backchannel',
      casService: row.cas_service,
      casTicket: row.cas_ticket,
    }));
  }

  async finish(delivery: LogoutDelivery, at: number, outcome: LogoutDeliveryOutcome): Promise<void> {
    await this.atomically(async (trx) => {
      await trx
        .updateTable('logout_deliveries')
        .set({
          status: outcome.status,
          lease_until: 0,
          last_attempt_at: at,
          last_result: outcome.result,
          ...(outcome.status === 'pending' && { next_attempt_at: outcome.nextAttemptAt }),
        })
        .where('sid', '=', delivery.sid)
        .where('client_id', '=', delivery.clientId)
        .execute();
      await trx
        .updateTable('apps')
        .set({ backchannel_logout_last_at: at, backchannel_logout_last_result: outcome.result })
        .where('client_id', '=', delivery.clientId)
        .execute();
    });
  }

  async pendingByApp(clientId?: string): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('logout_deliveries')
      .select(['client_id', (eb) => eb.fn.countAll<number | string>().as('count')])
      .where('status', '=', 'pending')
      .$if(clientId !== undefined, (query) => query.where('client_id', '=', clientId!))
      .groupBy('client_id')
      .execute();
    return new Map(rows.map((row) => [row.client_id, Number(row.count)]));
  }

  onQueued(listener: () => void): () => void {
    return this.queued.subscribe(listener);
  }

  /** Forgets finished deliveries after a week, and the apps of sessions that expired; answers how many. */
  async purgeExpired(now: number): Promise<number> {
    const finished = await this.db
      .deleteFrom('logout_deliveries')
      .where('status', '!=', 'pending')
      .where('last_attempt_at', '<', now - FINISHED_RETENTION_MS)
      .executeTakeFirst();
    await this.db
      .deleteFrom('session_apps')
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('sessions').select('sid').whereRef('sessions.sid', '=', 'session_apps.sid'))),
      )
      .execute();
    return Number(finished.numDeletedRows);
  }
}
