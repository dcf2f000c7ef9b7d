/**
 * Bench-only probe, preloaded into each server under test with `node --import <compiled probe>` (never part
 * of a server's own code, so it costs nothing outside the bench). Over the IPC channel the bench opens, it
 * answers what the server's main thread went through during one measured run:
 *
 * - event-loop delay: `perf_hooks.monitorEventLoopDelay` (a libuv timer every RESOLUTION_MS, no JavaScript;
 *   each sample is how late it fired), p50/p99/max;
 * - garbage-collection pauses: every `gc` PerformanceEntry (count, total and longest pause, and how many were
 *   full mark-compacts);
 * - run-queue wait: how long the main thread was ready to run but had no core (the second field of Linux's
 *   /proc/<pid>/task/<tid>/schedstat, in ns), in all and the most between two readings RUN_QUEUE_EVERY_MS
 *   apart. A loop delay about as long as that most is the kernel's doing (the cores were taken by the load
 *   generator, another server or the database), not a long turn of the server's own.
 *
 * Messages: `{ probe: 'start' }` resets both and is acknowledged; `{ probe: 'stop' }` answers the reading.
 */
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { runQueueWaitNs } from './schedstat.js';

/** Sampling period of the delay histogram, in ms: stalls of a few ms show, at ~200 libuv wake-ups a second. */
const RESOLUTION_MS = 5;
const NS_PER_MS = 1e6;
/** How often the run-queue wait is read during a run (a read of a /proc file: ~10 µs). */
const RUN_QUEUE_EVERY_MS = 10;

export interface ProbeReading {
  readonly loopDelay: { readonly p50Ms: number; readonly p99Ms: number; readonly maxMs: number };
  readonly gc: {
    readonly count: number;
    readonly totalMs: number;
    readonly maxMs: number;
    /** Full mark-compact collections (the rest are young-generation scavenges and incremental steps). */
    readonly major: number;
  };
  /** Absent where /proc has no schedstat (not Linux, or a kernel without schedstats). */
  readonly runQueue?: { readonly totalMs: number; readonly maxMs: number };
}

/** Reads the run-queue wait every RUN_QUEUE_EVERY_MS from `start` until `stop`. */
class RunQueueMeter {
  private readonly first: number | undefined = runQueueWaitNs();
  private last = this.first;
  private most = 0;
  private readonly timer = setInterval(() => this.read(), RUN_QUEUE_EVERY_MS).unref();

  private read(): void {
    const now = runQueueWaitNs();
    if (now === undefined || this.last === undefined) return;
    this.most = Math.max(this.most, now - this.last);
    this.last = now;
  }

  stop(): ProbeReading['runQueue'] {
    clearInterval(this.timer);
    this.read();
    if (this.first === undefined || this.last === undefined) return undefined;
    return { totalMs: (this.last - this.first) / NS_PER_MS, maxMs: this.most / NS_PER_MS };
  }
}

interface GcEntryDetail {
  readonly kind?: number;
}

const send = process.send?.bind(process);
if (send !== undefined) {
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  let gc = { count: 0, totalMs: 0, maxMs: 0, major: 0 };
  let runQueue: RunQueueMeter | undefined;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.count++;
      gc.totalMs += entry.duration;
      if (entry.duration > gc.maxMs) gc.maxMs = entry.duration;
      if (
        ((entry as { detail?: unknown }).detail as GcEntryDetail | undefined)?.kind ===
        constants.NODE_PERFORMANCE_GC_MAJOR
      )
        gc.major++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  delay.enable();
  process.on('message', (message: unknown) => {
    const kind = (message as { probe?: string } | null)?.probe;
    if (kind === 'start') {
      delay.reset();
      gc = { count: 0, totalMs: 0, maxMs: 0, major: 0 };
      runQueue?.stop();
      runQueue = new RunQueueMeter();
      send({ probe: 'started' });
    } else if (kind === 'stop') {
      const waited = runQueue?.stop();
      runQueue = undefined;
      const reading: ProbeReading = {
        loopDelay: {
          p50Ms: delay.percentile(50) / NS_PER_MS,
          p99Ms: delay.percentile(99) / NS_PER_MS,
          maxMs: delay.max / NS_PER_MS,
        },
        gc: { ...gc },
        ...(waited === undefined ? {} : { runQueue: waited }),
      };
      send({ probe: 'reading', reading });
    }
  });
  // The channel must not keep a server alive that was asked to stop (a 'message' listener refs it).
  process.channel?.unref();
}
