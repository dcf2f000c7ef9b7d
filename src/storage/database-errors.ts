/**
 * Which database errors mean "the database is unavailable" (an outage the instance waits out and answers
 * 503 for, docs/operations.md#when-the-database-is-unavailable) rather than a bug (a 500), and which mean a
 * PostgreSQL connection can no longer be trusted and must be closed instead of going back to the pool.
 */

/** Operating-system errors of a connection that failed or broke. */
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs (PostgreSQL documentation, Appendix A) of an outage: the server is shutting down,
 * starting, out of connections, disk or memory, read-only after a failover, or cancelled a statement that
 * ran past `statement_timeout`.
 */
function isOutageSqlState(code: string): boolean {
  return (
    code.startsWith('08') || // connection exception
    code.startsWith('53') || // insufficient resources: disk full, out of memory, too many connections
    code.startsWith('58') || // system error: I/O error
    code === '57P01' || // admin_shutdown
    code === '57P02' || // crash_shutdown
    code === '57P03' || // cannot_connect_now (starting up, or in recovery)
    code === '57P05' || // idle_session_timeout
    code === '57014' || // query_canceled: statement_timeout
    code === '25006' // read_only_sql_transaction: connected to a standby, e.g. the old primary after a failover
  );
}

/** SQLite result codes (https://sqlite.org/rescode.html) of a database that cannot be read or written now. */
function isOutageSqliteCode(code: string): boolean {
  return /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY)(_|$)/.test(code);
}

/**
 * What the `pg` driver and its pool throw when a connection broke, timed out or could not be made; none of
 * them carries a code.
 */
const BROKEN_CONNECTION_MESSAGE =
  /^(Connection terminated|Query read timeout|Client has encountered a connection error|timeout exceeded when trying to connect)/;

/** An error and its causes (`cause`, the errors of an AggregateError), at most a few levels deep. */
function* chain(error: unknown): Generator<unknown> {
  const seen = new Set<unknown>();
  const pending = [error];
  while (pending.length > 0 && seen.size < 8) {
    const next = pending.shift();
    if (next === undefined || next === null || seen.has(next)) continue;
    seen.add(next);
    yield next;
    if (typeof next === 'object') {
      const { cause, errors } = next as { cause?: unknown; errors?: unknown };
      pending.push(cause);
      if (Array.isArray(errors)) pending.push(...(errors as unknown[]));
    }
  }
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : '';
}

/** A connection-level failure: the connection broke, timed out or could not be opened. */
export function isConnectionFailure(error: unknown): boolean {
  for (const one of chain(error)) {
    const code = codeOf(one);
    if (code !== undefined && NETWORK_ERROR_CODES.has(code)) return true;
    if (BROKEN_CONNECTION_MESSAGE.test(messageOf(one))) return true;
  }
  return false;
}

/**
 * Whether a PostgreSQL connection that answered a query with `error` must be closed rather than reused: it
 * broke or timed out (its answer may still arrive), or the server is going away. A statement's own error
 * (a constraint, a cancelled statement) leaves the connection usable.
 */
export function mustDiscardConnection(error: unknown): boolean {
  if (isConnectionFailure(error)) return true;
  const code = codeOf(error);
  return code !== undefined && (code.startsWith('08') || /^57P0[1-3]$/.test(code));
}

/** Whether `error` means the database is unavailable now, so the request may succeed when retried later. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseTimeout || error instanceof DatabaseNotReady) return true;
  if (isConnectionFailure(error)) return true;
  for (const one of chain(error)) {
    const code = codeOf(one);
    if (code === undefined) continue;
    if (/^[0-9A-Z]{5}$/.test(code) && isOutageSqlState(code)) return true;
    if (code.startsWith('SQLITE_') && isOutageSqliteCode(code)) return true;
  }
  return false;
}

/** A database call that this program gave up waiting for (the readiness probe's bound). */
export class DatabaseTimeout extends Error {
  override readonly name = 'DatabaseTimeout';

  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms`);
  }
}

/** The instance is still waiting for the database to answer at start-up (docs/operations.md#starting-during-an-outage). */
export class DatabaseNotReady extends Error {
  override readonly name = 'DatabaseNotReady';

  constructor() {
    super('the database has not answered since the start; waiting for it');
  }
}
