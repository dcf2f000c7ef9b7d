/**
 * Bench-only probe, preloaded into each server under test with `node --import <compiled probe>` (never part
 * of a server's own code, so it costs nothing outside the bench). Over the IPC channel the bench opens, it
 * answers what the server's main thread went through during one measured run:
 *
 * - event-loop delay: `perf_hooks.monitorEventLoopDelay` (a libuv timer every RESOLUTION_MS, no JavaScript;
 *   each sample is how late it fired), p50/p99/max;
 * - garbage-collection pauses: every `gc` PerformanceEntry (count, total and longest pause, and how many were
 *   full mark-compacts).
 *
 * Messages: `{ probe: 'start' }` resets both and is acknowledged; `{ probe: 'stop' }` answers the reading.
 */
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

/** Sampling period of the delay histogram, in ms: stalls of a few ms show, at ~200 libuv wake-ups a second. */
const RESOLUTION_MS = 5;
const NS_PER_MS = 1e6;

export interface ProbeReading {
  readonly loopDelay: { readonly p50Ms: number; readonly p99Ms: number; readonly maxMs: number };
  readonly gc: {
    readonly count: number;
    readonly totalMs: number;
    readonly maxMs: number;
    /** Full mark-compact collections (the rest are young-generation scavenges and incremental steps). */
    readonly major: number;
  };
}

interface GcEntryDetail {
  readonly kind?: number;
}

const send = process.send?.bind(process);
if (send !== undefined) {
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  let gc = { count: 0, totalMs: 0, maxMs: 0, major: 0 };
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
      send({ probe: 'started' });
    } else if (kind === 'stop') {
      const reading: ProbeReading = {
        loopDelay: {
          p50Ms: delay.percentile(50) / NS_PER_MS,
          p99Ms: delay.percentile(99) / NS_PER_MS,
          maxMs: delay.max / NS_PER_MS,
        },
        gc: { ...gc },
      };
      send({ probe: 'reading', reading });
    }
  });
  // The channel must not keep a server alive that was asked to stop (a 'message' listener refs it).
  process.channel?.unref();
}
