/**
 * CPU time of one server process, from /proc/<pid>/stat: utime + stime (fields 14 and 15, in clock ticks),
 * summed over all its threads (so argon2's libuv workers and V8's GC threads count too). On a shared machine
 * req/s moves with whatever else runs; the CPU time the server spends per answered request hardly does.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { runQueueWaitNs } from '../probe/schedstat.js';

let ticksPerSecond: number | undefined;

/** `getconf CLK_TCK` (100 on every common Linux); 100 when getconf is missing. */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
      ticksPerSecond = Number.isFinite(value) && value > 0 ? value : 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User + system CPU seconds the process has used so far, or undefined (not Linux, process gone). */
export function processCpuSeconds(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Field 2, the command name, is in parentheses and may hold spaces: count fields after the last ")".
  // What follows starts at field 3, so field 14 (utime) is index 11 and field 15 (stime) index 12.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return (utime + stime) / clockTicks();
}

/** Starts counting; `stop(requests)` answers the CPU seconds used since, and µs per answered request. */
export function cpuMeter(pid: number): {
  stop(requests: number): { seconds: number; usPerRequest: number } | undefined;
} {
  const before = processCpuSeconds(pid);
  return {
    stop(requests) {
      const after = processCpuSeconds(pid);
      if (before === undefined || after === undefined || requests === 0) return undefined;
      const seconds = after - before;
      return { seconds, usPerRequest: (seconds / requests) * 1e6 };
    },
  };
}

/**
 * The same over a changing set of processes (PostgreSQL backends, which the pool may open mid-run): each
 * process's CPU at the end minus its CPU at the start (0 for one that started in between). A backend that
 * exits during the run takes its CPU time with it; the pool keeps its connections while it is busy.
 */
export async function processesCpuMeter(pids: () => Promise<readonly number[]>): Promise<{
  stop(requests: number): Promise<{ seconds: number; usPerRequest: number } | undefined>;
}> {
  const before = new Map<number, number>();
  for (const pid of await pids()) {
    const seconds = processCpuSeconds(pid);
    if (seconds !== undefined) before.set(pid, seconds);
  }
  return {
    async stop(requests) {
      const now = await pids();
      if (requests === 0 || now.length === 0) return undefined;
      let seconds = 0;
      for (const pid of now) {
        const after = processCpuSeconds(pid);
        if (after === undefined) continue;
        seconds += after - (before.get(pid) ?? 0);
      }
      return { seconds, usPerRequest: (seconds / requests) * 1e6 };
    },
  };
}

/** How long this process's main thread has waited for a core so far, in ms (../probe/schedstat.ts). */
export function mainThreadRunQueueMs(): number | undefined {
  const waited = runQueueWaitNs();
  return waited === undefined ? undefined : waited / 1e6;
}
