/**
 * The cas_tickets table (docs/architecture.md#storage): CAS service tickets, stored as SHA-256 digests
 * (docs/interface.md#cas-protocol). Redemption is one `update … where used_at is null … returning`, so a
 * ticket has one winner under any race, on both databases. A validated ticket stays until its session ends;
 * the transaction that ends the session turns it into a `logoutRequest` delivery (`queueCasLogouts`, called
 * from logouts.ts) and voids the session's unvalidated tickets.
 */
import { type Kysely, sql } from 'kysely';
import { columns } from './columns.js';
import { Repository } from './connection.js';
import type { Database, Row } from './schema.js';
import type { CasTicketRecord, CasTicketRepository } from './store.js';

function toTicket(row: Row<'cas_tickets'>): CasTicketRecord {
  return {
    ticketHash: row.ticket_hash,
    clientId: row.client_id,
    service: row.service,
    uin: Number(row.uin),
    sid: row.sid,
    fromNewLogin: Number(row.from_new_login) === 1,
    authTime: Number(row.auth_time),
    amr: row.amr.split(' ').filter((method) => method !== ''),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    usedAt: row.used_at === null ? null : Number(row.used_at),
  };
}

/**
 * Queues a CAS single logout for every validated ticket of the ended sessions `sids`, and forgets all their
 * tickets (an unvalidated one is void from now on); answers how many were queued. Runs inside the
 * transaction that ends the sessions, so a crash between the sign-out and the delivery loses none.
 */
export async function queueCasLogouts(trx: Kysely<Database>, sids: readonly string[]): Promise<number> {
  if (sids.length === 0) return 0;
  const inSids = sql.join(sids.map((sid) => sql`${sid}`));
  const queued = await sql`
    insert into logout_deliveries (sid, client_id, uin, kind, cas_service, cas_ticket)
    select 'cas:' || ticket_hash, client_id, uin, 'cas', service, sealed_ticket
      from cas_tickets
     where sid in (${inSids}) and validated_at is not null and sealed_ticket is not null
    on conflict (sid, client_id) do nothing`.execute(trx);
  await trx.deleteFrom('cas_tickets').where('sid', 'in', sids).execute();
  return Number(queued.numAffectedRows ?? 0n);
}

function casTicketRow(ticket: CasTicketRecord): Row<'cas_tickets'> {
  const { amr, ...fields } = ticket;
  return { ...columns(fields), amr: amr.join(' '), validated_at: null, sealed_ticket: null };
}

export class CasTickets extends Repository implements CasTicketRepository {
  async insert(ticket: CasTicketRecord): Promise<void> {
    await this.db.insertInto('cas_tickets').values(casTicketRow(ticket)).execute();
  }

  async redeem(ticketHash: string, now: number): Promise<CasTicketRecord | undefined> {
    const row = await this.db
      .updateTable('cas_tickets')
      .set({ used_at: now })
      .where('ticket_hash', '=', ticketHash)
      .where('used_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    return row && toTicket(row);
  }

  async find(ticketHash: string): Promise<CasTicketRecord | undefined> {
    const row = await this.db
      .selectFrom('cas_tickets')
      .selectAll()
      .where('ticket_hash', '=', ticketHash)
      .executeTakeFirst();
    return row && toTicket(row);
  }

  async recordValidation(
    ticketHash: string,
    sid: string,
    sealedTicket: string,
    now: number,
  ): Promise<boolean> {
    // PostgreSQL: `for share` waits for a sign-out that is deleting the session right now, and then sees it
    // gone, so a ticket is either recorded before the sign-out queues its logouts or refused. SQLite has one
    // writer at a time.
    const lock = this.connection.kind === 'postgres' ? sql`for share` : sql``;
    const result = await sql`
      update cas_tickets set validated_at = ${now}, sealed_ticket = ${sealedTicket}
       where ticket_hash = ${ticketHash}
         and exists (select 1 from sessions where sid = ${sid} ${lock})`.execute(this.db);
    return Number(result.numAffectedRows ?? 0n) > 0;
  }

  async hasNewLoginTicket(sid: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('cas_tickets')
      .select('ticket_hash')
      .where('sid', '=', sid)
      .where('from_new_login', '=', 1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async purgeExpired(now: number): Promise<number> {
    const result = await this.db
      .deleteFrom('cas_tickets')
      .where((eb) =>
        eb.or([
          eb.and([eb('validated_at', 'is', null), eb('expires_at', '<', now)]),
          eb.not(
            eb.exists(
              eb.selectFrom('sessions').select('sid').whereRef('sessions.sid', '=', 'cas_tickets.sid'),
            ),
          ),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
