/**
 * An outage of the school's directory, as the log tells it (docs/operations.md#when-the-directory-is-unavailable):
 * one line when it begins, with the reason; one line every 10 s with the number of directory sign-ins refused
 * meanwhile; one line when the directory answers again. Local users and admins sign in throughout, and
 * `/readyz` stays ready: the directory is not the service's own dependency.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Directory, DirectoryUnavailable } from '../domain/directory.js';

const REPORT_INTERVAL_MS = 10_000;

export class DirectoryOutage {
  private startedAt: number | undefined;
  private refusedSinceReport = 0;
  private refusedInOutage = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly label: string,
  ) {}

  /** What the directory said after a connection: nothing (it answered) or why it could not be asked. */
  readonly listener = (problem: DirectoryUnavailable | undefined): void => {
    if (problem === undefined) this.answered();
    else this.refused(problem);
  };

  private refused(problem: DirectoryUnavailable): void {
    this.refusedSinceReport++;
    this.refusedInOutage++;
    if (this.startedAt !== undefined) return;
    this.startedAt = Date.now();
    this.log.error(
      { directory: this.label, reason: problem.message },
      `school directory unavailable (${this.label}): ${problem.message}; directory users cannot sign in, local users can`,
    );
    this.timer = setInterval(() => this.report(), REPORT_INTERVAL_MS);
    this.timer.unref();
  }

  private answered(): void {
    if (this.startedAt === undefined) return;
    this.log.info(
      { directory: this.label, refused: this.refusedInOutage, lasted_s: this.seconds() },
      `school directory available again (${this.label}); ${this.refusedInOutage} directory requests refused during the outage`,
    );
    this.close();
    this.startedAt = undefined;
    this.refusedSinceReport = 0;
    this.refusedInOutage = 0;
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private report(): void {
    if (this.refusedSinceReport === 0) return;
    this.log.warn(
      { directory: this.label, refused: this.refusedSinceReport, since_s: this.seconds() },
      `school directory still unavailable (${this.label}): ${this.refusedSinceReport} directory requests refused in the last ${REPORT_INTERVAL_MS / 1000} s`,
    );
    this.refusedSinceReport = 0;
  }

  private seconds(): number {
    return Math.round((Date.now() - (this.startedAt ?? Date.now())) / 1000);
  }
}

/** Logs the directory's outages through the server's logger, until the server closes. */
export function registerDirectoryOutage(app: FastifyInstance, directory: Directory | undefined): void {
  if (directory === undefined) return;
  const outage = new DirectoryOutage(app.log, directory.label);
  directory.health = outage.listener;
  app.addHook('onClose', async () => {
    outage.close();
    if (directory.health === outage.listener) directory.health = undefined;
  });
}
