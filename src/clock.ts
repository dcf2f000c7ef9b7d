/** The source of "now" in epoch milliseconds; tests may substitute their own. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
