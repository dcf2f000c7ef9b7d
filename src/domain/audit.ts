/**
 * The audit trail (docs/interface.md#people-groups-and-audit): who did what, to what, from where, and how it
 * ended — never a secret. Recording never fails a request: a write that fails is logged and the request goes
 * on. Only rare, human-paced actions are recorded (sign-ins, consents, admin actions); the token and
 * user-information endpoints are counted in metrics instead, so they never wait on this table.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { AuditAction, AuditOutcome } from '../shared/people.js';
import type { AuditEventView } from '../shared/views.js';
import type { AuditEventRecord, Store } from '../storage/store.js';

/** What a route knows about the request behind an event (a Fastify request fits). */
export interface AuditSource {
  readonly ip: string;
  readonly headers: { readonly 'user-agent'?: string | undefined };
  readonly log: { error(object: object, message: string): void };
}

export interface AuditInput {
  readonly action: AuditAction;
  /** Defaults to `success`. */
  readonly outcome?: AuditOutcome;
  /** Who acted: the signed-in user, or null when nobody is known (a refused sign-in). */
  readonly actorUin?: number | null;
  /** The app whose service token made the call (docs/interface.md#service-accounts). */
  readonly actorClientId?: string | null;
  /** What was acted on: `user:<uin>`, `app:<client_id>`, `users:<n>`. */
  readonly target?: string | null;
  readonly detail?: Readonly<Record<string, unknown>>;
  /** The request, for its address, user agent and logger; absent for the command line. */
  readonly request?: AuditSource;
}

const MAX_USER_AGENT = 256;

/** Keys whose values are secrets: dropped from `detail` whatever a caller passes. */
const SECRET_KEY = /password|secret|token|^code$|reset_code|cookie/i;

function withoutSecrets(detail: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(detail).filter(([key]) => !SECRET_KEY.test(key)));
}

export const userTarget = (uin: number): string => `user:${uin}`;
export const appTarget = (clientId: string): string => `app:${clientId}`;

export class AuditLog {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Where failures go when the event has no request to log them with. */
    private readonly fallbackLog: (error: unknown, event: AuditEventRecord) => void = (error, event) =>
      process.stderr.write(
        `${JSON.stringify({ level: 50, msg: 'audit event not recorded', action: event.action, err: String(error) })}\n`,
      ),
  ) {}

  /** Records a user's action on their own account (the actor is the target); never rejects. */
  recordOwn(
    request: AuditSource,
    uin: number,
    action: AuditAction,
    extra: Pick<AuditInput, 'outcome' | 'detail'> = {},
  ): Promise<void> {
    return this.record({ action, actorUin: uin, target: userTarget(uin), request, ...extra });
  }

  /** Records an event; never rejects. */
  async record(input: AuditInput): Promise<void> {
    const userAgent = input.request?.headers['user-agent'];
    const event: AuditEventRecord = {
      id: randomBytes(8).toString('hex'),
      at: this.clock.now(),
      actorUin: input.actorUin ?? null,
      action: input.action,
      target: input.target ?? null,
      ip: input.request?.ip ?? null,
      userAgent: typeof userAgent === 'string' ? userAgent.slice(0, MAX_USER_AGENT) : null,
      outcome: input.outcome ?? 'success',
      detail: input.detail ? withoutSecrets(input.detail) : null,
      actorClientId: input.actorClientId ?? null,
    };
    try {
      await this.store.audit.insert(event);
    } catch (error) {
      if (input.request) {
        input.request.log.error({ err: error, action: event.action }, 'audit event not recorded');
      } else {
        this.fallbackLog(error, event);
      }
    }
  }
}

export function auditEventView(event: AuditEventRecord): AuditEventView {
  return {
    id: event.id,
    at: new Date(event.at).toISOString(),
    actor_uin: event.actorUin,
    action: event.action,
    target: event.target,
    ip: event.ip,
    user_agent: event.userAgent,
    outcome: event.outcome,
    detail: event.detail,
    actor_client_id: event.actorClientId ?? null,
  };
}

/** The opaque cursor of the next page: the (at, id) of the last event shown. */
export function encodeAuditCursor(event: Pick<AuditEventRecord, 'at' | 'id'>): string {
  return Buffer.from(`${event.at}:${event.id}`, 'utf8').toString('base64url');
}

export function decodeAuditCursor(cursor: string): { at: number; id: string } | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^(\d{1,16}):([0-9a-f]{16})$/.exec(text);
  if (!match?.[1] || !match[2]) return undefined;
  return { at: Number(match[1]), id: match[2] };
}

/** A CSV cell a spreadsheet will not run as a formula (OWASP "CSV Injection"): = + - @ tab CR get a '. */
export function csvCell(value: unknown): string {
  let text =
    value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const AUDIT_CSV_COLUMNS = [
  'at',
  'actor_uin',
  'action',
  'target',
  'outcome',
  'ip',
  'user_agent',
  'detail',
  'actor_client_id',
] as const;

export function auditCsvRow(event: AuditEventView): string {
  return AUDIT_CSV_COLUMNS.map((column) => csvCell(event[column])).join(',');
}
