/**
 * Waiting for a SQLite lock without stopping the event loop (docs/architecture.md#storage).
 *
 * SQLite's own wait (`busy_timeout`) sleeps in the thread that asked, and a process's one connection lives
 * on the event-loop thread: while another process held the write lock (the CLI adding users, a second
 * instance migrating, the bench minting codes), every request in flight stopped, and the handler's back-off
 * (sleeps of 1, 2, 5, … up to 100 ms) kept it stopped for up to 100 ms after the lock was free. Measured on
 * the 2-core bench VM (strace of the server): the exchange batch's BEGIN IMMEDIATE asleep in it for 255 ms
 * while the bench's own connection inserted the next run's codes.
 *
 * So the serving connection waits 0 ms (`busy_timeout = 0`, open-store.ts): a statement that finds the lock
 * taken fails at once with SQLITE_BUSY, having changed nothing, and every place that takes the lock (a
 * transaction's BEGIN IMMEDIATE, a statement outside a transaction) tries again on a timer, for as long as
 * the busy timeout was (5 s), while the event loop serves everything else.
 *
 * The tries are at most 5 ms apart, not SQLite's up to 100 ms: a try that finds the lock taken costs a few
 * microseconds, and every exchange that arrives meanwhile queues behind the waiting batch, so a long step
 * would keep them waiting long after the lock was free.
 */

/** The nth retry waits the nth delay, then the last one again. */
const DELAYS_MS = [1, 2, 3, 5] as const;

/** How long a lock is waited for before SQLITE_BUSY is the answer: the busy timeout the connection had. */
export const LOCK_WAIT_MS = 5000;

/** SQLITE_BUSY and its extended codes that a later try can overcome (https://sqlite.org/rescode.html). */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_RECOVERY' || code === 'SQLITE_BUSY_TIMEOUT';
}

/**
 * Runs `attempt` until it does not fail with SQLITE_BUSY, or `waitMs` of back-off have passed. The first
 * attempt runs at once (synchronously up to its first `await`). `attempt` must be safe to run again after
 * it failed busy: one statement outside a transaction, or a whole transaction, which changed nothing.
 */
export async function whileBusy<T>(attempt: () => T | Promise<T>, waitMs = LOCK_WAIT_MS): Promise<T> {
  let waited = 0;
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isSqliteBusy(error) || waited >= waitMs) throw error;
    }
    const delay = Math.min(DELAYS_MS[Math.min(retry, DELAYS_MS.length - 1)] ?? 5, waitMs - waited);
    await new Promise((resolve) => setTimeout(resolve, delay));
    waited += delay;
  }
}
