/**
 * An outage of the database, as the log tells it (docs/operations.md#when-the-database-is-unavailable): one
 * line when it begins, with the reason; one line every 10 s with the number of requests refused meanwhile;
 * one line when it is over. Before, every refused request logged a stack trace: about 10.5 MB of log per
 * instance per 10 s during an outage, which buried the one line that said what was wrong.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

const REPORT_INTERVAL_MS = 10_000;

declare module 'fastify' {
  interface FastifyInstance {
    readonly databaseOutage: DatabaseOutage;
  }
}

/** The error in one line: its code, when it has one the message lacks, and its message. */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

export class DatabaseOutage {
  private startedAt: number | undefined;
  private refusedSinceReport = 0;
  private refusedInOutage = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly log: FastifyBaseLogger) {}

  /** A request (or a readiness probe) failed because the database is unavailable. */
  refused(error: unknown): void {
    this.refusedSinceReport++;
    this.refusedInOutage++;
    if (this.startedAt !== undefined) return;
    this.startedAt = Date.now();
    this.log.error({ reason: reason(error) }, `database unavailable: ${reason(error)}`);
    this.timer = setInterval(() => this.report(), REPORT_INTERVAL_MS);
    this.timer.unref();
  }

  /** The database answered a readiness probe: any outage is over. */
  answered(): void {
    if (this.startedAt !== undefined) this.end('the database answered the readiness probe');
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private report(): void {
    if (this.refusedSinceReport === 0) {
      this.end(`no request refused for ${REPORT_INTERVAL_MS / 1000} s`);
      return;
    }
    this.log.warn(
      { refused: this.refusedSinceReport, since_s: this.seconds() },
      `database still unavailable: ${this.refusedSinceReport} requests refused in the last ${REPORT_INTERVAL_MS / 1000} s`,
    );
    this.refusedSinceReport = 0;
  }

  private end(why: string): void {
    this.log.info(
      { refused: this.refusedInOutage, lasted_s: this.seconds() },
      `database available again (${why}); ${this.refusedInOutage} requests refused during the outage`,
    );
    this.close();
    this.startedAt = undefined;
    this.refusedSinceReport = 0;
    this.refusedInOutage = 0;
  }

  private seconds(): number {
    return Math.round((Date.now() - (this.startedAt ?? Date.now())) / 1000);
  }
}

/** Gives the server its outage log (`app.databaseOutage`), stopped when the server closes. */
export function registerDatabaseOutage(app: FastifyInstance): void {
  const outage = new DatabaseOutage(app.log);
  app.decorate('databaseOutage', outage);
  app.addHook('onClose', async () => outage.close());
}
