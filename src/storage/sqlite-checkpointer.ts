/**
 * WAL checkpoints on a timer instead of inside commits, and off the event loop. By default SQLite checkpoints
 * inside whichever commit pushes the WAL past 1,000 pages, so one unlucky request pays for copying pages back
 * into the database file and the fsync. The serving connection turns that off (`wal_autocheckpoint = 0`) and
 * a PASSIVE checkpoint runs once a second instead: a page rewritten by many commits in that second is copied
 * once.
 *
 * It runs on a worker thread, over a connection of its own: measured on the 2-core bench VM, one second of
 * code exchanges (≈ 2,000–3,000 WAL pages) took 32–69 ms to checkpoint, and on the main thread every request
 * in flight waited for it (the exchange rows' open-loop p99 of 40–50 ms). A PASSIVE checkpoint takes no lock
 * a writer needs (only the checkpoint lock and, while it copies, read mark 0, which a reader then passes by),
 * so the server's commits go on meanwhile; and it never waits for one either (SQLite invokes no busy handler
 * in PASSIVE mode; the worker's connection has none besides). The worker costs a small V8 isolate; should it
 * fail to start or die, the checkpoints fall back to the main thread.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { LOCK_WAIT_MS } from './sqlite-busy.js';
import { sqliteDriverPath } from './sqlite-driver.js';

/**
 * The worker's code, evaluated as a script (the same text whether the server runs from dist/ or its
 * TypeScript sources under the tests): open the file, checkpoint on a timer, stop when told.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { statSync } = require('node:fs');
const Database = require(workerData.driverPath);
const database = new Database(workerData.file, { timeout: 0 });
database.pragma('cache_size = -' + workerData.cacheKib);
let lastLog = -1;
const walBytes = () => {
  try {
    return statSync(workerData.file + '-wal').size;
  } catch {
    return 0;
  }
};
const checkpoint = () => {
  try {
    const [{ busy, log, checkpointed }] = database.pragma('wal_checkpoint(PASSIVE)');
    // No commit since the last tick, all of it copied back, and the file grown past its bound: shrink it.
    const idle = busy === 0 && log === lastLog && log === checkpointed;
    lastLog = log;
    if (idle && walBytes() > workerData.walLimitBytes) database.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // Busy: the next tick checkpoints.
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  database.close();
  parentPort.close();
});
`;

/**
 * The worker's page cache, in KiB: a checkpoint copies the WAL's frames into the database file without
 * going through it, so the worker reads next to nothing through its connection and needs none of the 16 MB
 * better-sqlite3's build allows a connection by default.
 */
const WORKER_PAGE_CACHE_KIB = 64;

/**
 * How large the WAL file may stay after a burst of writes grew it. The serving connection never truncates
 * it (open-store.ts): a truncation frees the file's blocks, which on a file system mounted with `discard`
 * stopped the event loop for 100–165 ms (the bench's SQLite exchange rows; open-loop p99 at 1,000/s went from
 * 71–97 ms to 0.6–1.4 ms without it). The worker truncates it instead, with a TRUNCATE checkpoint, at a tick
 * that finds no commit since the last one and everything copied back. That checkpoint holds the write lock
 * while it truncates: the server's writes meanwhile wait for it on a timer (sqlite-busy.ts), its reads go on.
 */
const WAL_LIMIT_BYTES = 64 * 1024 * 1024;

export class SqliteCheckpointer {
  private worker: Worker | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(
    private readonly database: BetterSqlite3.Database,
    private readonly intervalMs = 1000,
  ) {
    try {
      this.worker = this.startWorker();
    } catch {
      this.onMainThread();
    }
  }

  private startWorker(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        file: this.database.name,
        driverPath: sqliteDriverPath(),
        intervalMs: this.intervalMs,
        cacheKib: WORKER_PAGE_CACHE_KIB,
        walLimitBytes: WAL_LIMIT_BYTES,
      },
      // It holds a connection and a timer: a small heap is plenty.
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 1 },
      stdout: true,
      stderr: true,
    });
    worker.unref();
    const fallBack = (): void => {
      if (this.closing || this.worker !== worker) return;
      this.worker = undefined;
      this.onMainThread();
    };
    worker.on('error', fallBack);
    worker.on('exit', fallBack);
    return worker;
  }

  private onMainThread(): void {
    this.timer = setInterval(() => this.checkpoint('PASSIVE'), this.intervalMs);
    this.timer.unref();
  }

  /** A last checkpoint that also empties the WAL file. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    const worker = this.worker;
    this.worker = undefined;
    if (worker !== undefined) {
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('close');
      // A worker stuck in a checkpoint is not waited for past a second.
      const timeout = setTimeout(() => void worker.terminate(), 1000);
      await exited;
      clearTimeout(timeout);
    }
    this.checkpoint('TRUNCATE');
  }

  private checkpoint(mode: 'PASSIVE' | 'TRUNCATE'): void {
    // Never inside a transaction of store.transaction (transactions.ts): the next tick checkpoints.
    if (this.database.inTransaction) return;
    try {
      // The serving connection never sleeps for a lock (sqlite-busy.ts); the last checkpoint, at shutdown,
      // waits for other processes' readers and writers as SQLite's busy handler does.
      if (mode === 'TRUNCATE') this.database.pragma(`busy_timeout = ${LOCK_WAIT_MS}`);
      this.database.pragma(`wal_checkpoint(${mode})`);
    } catch {
      // Busy or closed: the next tick (or the next start) checkpoints; the WAL stays consistent meanwhile.
    }
  }
}
