/**
 * The bench shares the machine with whatever else runs on it. Before each row it looks at how busy the
 * CPUs were over the last second (/proc/stat; its own servers are idle between rows) and, if something else
 * is using more than `maxBusy` of them, waits for a quieter moment, up to `maxWaitMs`. The busy share seen
 * at the start of each row is recorded, so a noisy row can be recognised in the results.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

function cpuTimes(): { idle: number; total: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const fields = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return { idle, total: fields.reduce((a, b) => a + b, 0) };
  } catch {
    return undefined;
  }
}

/** Share of all CPUs busy over the next `ms` milliseconds (0..1), or undefined off Linux. */
export async function busyShare(ms = 1000): Promise<number | undefined> {
  const before = cpuTimes();
  await sleep(ms);
  const after = cpuTimes();
  if (before === undefined || after === undefined || after.total === before.total) return undefined;
  return 1 - (after.idle - before.idle) / (after.total - before.total);
}

/** Waits until the CPUs are at most `maxBusy` busy (or `maxWaitMs` passed); answers the last busy share. */
export async function waitForQuiet(
  maxBusy: number,
  maxWaitMs: number,
  log: (line: string) => void,
): Promise<number> {
  const deadline = Date.now() + maxWaitMs;
  let warned = false;
  for (;;) {
    const busy = await busyShare();
    if (busy === undefined || busy <= maxBusy) return busy ?? 0;
    if (Date.now() > deadline) {
      log(`  the machine is still ${(busy * 100).toFixed(0)}% busy with other work; measuring anyway`);
      return busy;
    }
    if (!warned) {
      log(
        `  other work keeps the CPUs ${(busy * 100).toFixed(0)}% busy; waiting up to ${maxWaitMs / 1000} s`,
      );
      warned = true;
    }
  }
}
