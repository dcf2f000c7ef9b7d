import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import {
  AUDIT_CSV_COLUMNS,
  auditCsvRow,
  auditEventView,
  decodeAuditCursor,
  encodeAuditCursor,
} from '../../../domain/audit.js';
import { isValidUin } from '../../../domain/users.js';
import { AUDIT_OUTCOMES } from '../../../shared/people.js';
import type { AppContext } from '../../../app-context.js';
import { listAuditEvents } from '../../../domain/admin-reads.js';
import type { AuditQuery } from '../../../storage/store.js';
import { listScopeOf } from './principal.js';
import { badRequest } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { StringEnum } from './schemas.js';

/** docs/interface.md#roles: a helpdesk member or auditor reads the events by or on their people only. */
const permission = { action: 'audit.read', target: 'scoped-list' } as const;

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 500;
/** The CSV export reads the table a page at a time, and stops after this many events. */
const CSV_PAGE_SIZE = 1000;
const MAX_CSV_EVENTS = 200_000;

// Query-string values arrive as strings (Ajv does not coerce).
const AuditListQuery = Type.Object(
  {
    uin: Type.Optional(Type.String({ pattern: '^([1-9][0-9]{0,15})?$' })),
    // One action, or several separated by commas.
    action: Type.Optional(Type.String({ pattern: '^[a-z0-9_.,]{0,512}$' })),
    outcome: Type.Optional(StringEnum<string>(['', ...AUDIT_OUTCOMES])),
    since: Type.Optional(Type.String({ maxLength: 40 })),
    until: Type.Optional(Type.String({ maxLength: 40 })),
    cursor: Type.Optional(Type.String({ maxLength: 64 })),
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$' })),
  },
  { additionalProperties: false },
);
type AuditListQuery = typeof AuditListQuery.static;

/** An ISO 8601 date or time (a date alone is its midnight UTC), or undefined when not given. */
function time(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const at = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(at)) {
    throw badRequest(`${name} must be an ISO 8601 date or time such as 2026-01-15T08:00:00Z`);
  }
  return at;
}

/** The filters shared by the JSON list and the CSV export. */
function filters(query: AuditListQuery): Omit<AuditQuery, 'limit' | 'before'> {
  const uin = query.uin === undefined || query.uin === '' ? undefined : Number(query.uin);
  if (uin !== undefined && !isValidUin(uin)) throw badRequest('uin must be a positive integer up to 2^53-1');
  const actions = (query.action ?? '').split(',').filter((action) => action !== '');
  return {
    uin,
    actions,
    outcome: query.outcome === '' ? undefined : query.outcome,
    since: time('since', query.since),
    until: time('until', query.until),
  };
}

async function* csvLines(
  ctx: AppContext,
  query: Omit<AuditQuery, 'limit' | 'before'>,
): AsyncGenerator<string> {
  // A BOM, so spreadsheet programs read the file as UTF-8 (names and user agents).
  yield `\uFEFF${AUDIT_CSV_COLUMNS.join(',')}\r\n`;
  let before: AuditQuery['before'];
  for (let sent = 0; sent < MAX_CSV_EVENTS;) {
    const page = await listAuditEvents(ctx, { ...query, before, limit: CSV_PAGE_SIZE });
    if (page.length === 0) return;
    yield page.map((event) => `${auditCsvRow(auditEventView(event))}\r\n`).join('');
    sent += page.length;
    const last = page[page.length - 1];
    if (!last || page.length < CSV_PAGE_SIZE) return;
    before = { at: last.at, id: last.id };
  }
}

/**
 * The audit trail (docs/interface.md#people-groups-and-audit): `GET /v1/admin/audit` newest first, a page at a
 * time (`next_cursor` continues below the last event shown), and the same as CSV at `GET /v1/admin/audit.csv`.
 */
export const adminAuditRoutes: RoutePlugin = async (app, { ctx }) => {
  app.get(
    '/v1/admin/audit',
    { schema: { querystring: AuditListQuery }, config: { permission } },
    async (request) => {
      const query = request.query;
      const limit = query.limit === undefined ? DEFAULT_PAGE_SIZE : Number(query.limit);
      if (limit < 1 || limit > MAX_PAGE_SIZE) throw badRequest(`limit must be from 1 to ${MAX_PAGE_SIZE}`);
      let before: AuditQuery['before'];
      if (query.cursor !== undefined && query.cursor !== '') {
        before = decodeAuditCursor(query.cursor);
        if (!before) throw badRequest('cursor is not one that this API gave out');
      }
      // One more than asked, to know whether another page follows.
      const events = await listAuditEvents(ctx, {
        ...filters(query),
        about: listScopeOf(request),
        before,
        limit: limit + 1,
      });
      const page = events.slice(0, limit);
      const last = page[page.length - 1];
      return ok({
        events: page.map(auditEventView),
        next_cursor: events.length > limit && last ? encodeAuditCursor(last) : null,
      });
    },
  );

  app.get(
    '/v1/admin/audit.csv',
    { schema: { querystring: AuditListQuery }, config: { permission } },
    async (request, reply) => {
      const query = { ...filters(request.query), about: listScopeOf(request) };
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="audit.csv"')
        .send(Readable.from(csvLines(ctx, query)));
    },
  );
};
