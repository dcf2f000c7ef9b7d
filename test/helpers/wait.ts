/**
 * Waiting for a condition instead of for a fixed time: a test that sleeps 300 ms "for the worker to run" is
 * slow when the machine is idle and wrong when it is loaded; one that waits for what it needs is neither.
 */

export interface WaitOptions {
  /** How long the condition has before the wait fails (10 s unless given). */
  readonly timeout?: number;
  /** How often the condition is asked (every 10 ms unless given). */
  readonly interval?: number;
  /** What the failure says was awaited. */
  readonly what?: string;
}

/**
 * Resolves with the condition's first truthy answer; fails, naming `what`, when it has none within `timeout`.
 * The condition may throw while not yet met (an assertion that does not hold yet): the last error is the cause
 * of the failure.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  { timeout = 10_000, interval = 10, what = 'the condition' }: WaitOptions = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeout;
  let lastError: unknown;
  for (;;) {
    try {
      const answer = await condition();
      if (answer) return answer as NonNullable<T>;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      throw new Error(`waitFor: ${what} did not hold within ${timeout} ms`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
