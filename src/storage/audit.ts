/**
 * The audit_events table: its queries (docs/architecture.md#storage). Read newest first by (at, id), a page at
 * a time (keyset pagination: the next page starts below the last row seen, so a page costs the same however
 * deep it is).
 */
import { sql } from 'kysely';
import { inScope } from './roles.js';
import { Repository, nullableNumber } from './connection.js';
import { columns } from './columns.js';
import type { Row } from './schema.js';
import type { AuditEventRecord, AuditQuery, AuditRepository } from './store.js';

function toAuditEvent(row: Row<'audit_events'>): AuditEventRecord {
  return {
    id: row.id,
    at: Number(row.at),
    actorUin: nullableNumber(row.actor_uin),
    action: row.action,
    target: row.target,
    ip: row.ip,
    userAgent: row.user_agent,
    outcome: row.outcome,
    detail: row.detail === null ? null : (JSON.parse(row.detail) as Record<string, unknown>),
    actorClientId: row.actor_client_id ?? null,
  };
}

function auditRow(event: AuditEventRecord): Row<'audit_events'> {
  const { detail, actorClientId = null, ...fields } = event;
  return {
    ...columns({ ...fields, actorClientId }),
    detail: detail === null ? null : JSON.stringify(detail),
  };
}

export class AuditEvents extends Repository implements AuditRepository {
  async insert(event: AuditEventRecord): Promise<void> {
    await this.db.insertInto('audit_events').values(auditRow(event)).execute();
  }

  async list(query: AuditQuery): Promise<AuditEventRecord[]> {
    let select = this.db.selectFrom('audit_events').selectAll();
    if (query.uin !== undefined) {
      const uin = query.uin;
      select = select.where((eb) => eb.or([eb('actor_uin', '=', uin), eb('target', '=', `user:${uin}`)]));
    }
    const about = query.about;
    if (about !== undefined) {
      // By or on one of the scope's users: `target` is `user:<uin>` (domain/audit.ts userTarget).
      const scoped = this.db.selectFrom('users').where((eb) => inScope(eb, about));
      select = select.where((eb) =>
        eb.or([
          eb('actor_uin', 'in', scoped.select('users.uin')),
          eb('target', 'in', scoped.select(sql<string>`'user:' || cast(users.uin as text)`.as('target'))),
        ]),
      );
    }
    if (query.actions !== undefined && query.actions.length > 0) {
      select = select.where('action', 'in', [...query.actions]);
    }
    if (query.outcome !== undefined) select = select.where('outcome', '=', query.outcome);
    if (query.since !== undefined) select = select.where('at', '>=', query.since);
    if (query.until !== undefined) select = select.where('at', '<', query.until);
    if (query.before !== undefined) {
      const { at, id } = query.before;
      // (at, id) < (before.at, before.id), spelled out: the same SQL on both databases.
      select = select.where((eb) =>
        eb.or([eb('at', '<', at), eb.and([eb('at', '=', at), eb('id', '<', id)])]),
      );
    }
    const rows = await select.orderBy('at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
    return rows.map(toAuditEvent);
  }

  /** Deletes the events recorded before `cutoff`; answers how many. */
  async purgeBefore(cutoff: number): Promise<number> {
    const result = await this.db.deleteFrom('audit_events').where('at', '<', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
