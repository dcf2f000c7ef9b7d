/**
 * Keeps only the newest of overlapping requests for one list: an answer that arrives after a newer request
 * was sent is stale (say the full list asked for after adding a user, overtaken by a search typed meanwhile)
 * and must not replace what the newer request shows.
 */
export interface Latest {
  /** Marks the start of a request; the returned function tells whether it is still the newest one. */
  start(): () => boolean;
}

export function latestOnly(): Latest {
  let newest = 0;
  return {
    start() {
      newest += 1;
      const mine = newest;
      return () => mine === newest;
    },
  };
}
