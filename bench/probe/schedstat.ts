/**
 * How long a thread has waited for a core so far (ready to run, none free), in ns: the second field of Linux's
 * /proc/<pid>/task/<tid>/schedstat. Read by the probe inside each server (loop-probe.ts) and by the load
 * generator for its own thread (bench/lib/cpu.ts); it sits here so that the probe, transpiled alone into
 * dist/bench-peers, can import it beside itself.
 */
import { readFileSync } from 'node:fs';

/** The main thread's (its thread id is the process id) wait so far, or undefined where it cannot be read. */
export function runQueueWaitNs(pid: number = process.pid): number | undefined {
  try {
    const waited = Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[1]);
    return Number.isFinite(waited) ? waited : undefined;
  } catch {
    return undefined;
  }
}
