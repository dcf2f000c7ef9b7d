/**
 * WAL checkpoints off the request path. By default SQLite checkpoints inside whichever commit pushes the WAL
 * past 1,000 pages, so one unlucky request pays for copying pages back into the database file (and the
 * fsync). The serving connection turns that off; this worker thread, with a connection of its own, runs a
 * PASSIVE checkpoint every second instead — it never blocks readers or the writer, and a page rewritten by
 * many commits in that second is copied once.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

// The worker runs as eval'd CommonJS (no build step, the same from src/ and dist/); it is handed the
// absolute path of better-sqlite3 so it resolves no matter the working directory.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
const checkpoint = (mode) => { try { db.pragma('wal_checkpoint(' + mode + ')'); } catch {} };
const timer = setInterval(() => checkpoint('PASSIVE'), workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint('TRUNCATE');
  db.close();
  parentPort.postMessage('closed');
});
`;

export class SqliteCheckpointer {
  private readonly worker: Worker;

  constructor(file: string, intervalMs = 1000) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, intervalMs } });
    // It must never keep the process alive on its own, nor take it down.
    this.worker.unref();
    this.worker.on('error', () => undefined);
  }

  /** Runs a last checkpoint that also empties the WAL file, then stops the worker. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      this.worker.once('message', () => resolve());
      this.worker.once('exit', () => resolve());
    });
    this.worker.postMessage('close');
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    await this.worker.terminate();
  }
}
