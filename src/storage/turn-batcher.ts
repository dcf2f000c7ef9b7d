/**
 * Coalesces the look-ups that arrive in one turn of the event loop into one query (the DataLoader pattern).
 *
 * Why: on PostgreSQL each query is a round trip, and a round trip costs the server far more CPU than the
 * query does: writing to the socket wakes a database process on another core (≈ 45 µs of this process's time
 * per write on the benchmark machine, where PostgreSQL itself answers 100k+ indexed selects a second). Under
 * load, the dozens of requests that a turn brings then share one query; alone, a request waits only for the
 * end of the current turn (`setImmediate`).
 */

export type LoadMany<K, V> = (keys: readonly K[]) => Promise<readonly V[]>;

interface Pending<K, V> {
  readonly key: K;
  readonly resolve: (value: V) => void;
  readonly reject: (error: unknown) => void;
}

export interface TurnBatcherOptions<K> {
  /** The most keys in one query; a larger turn is split (default 256). */
  readonly maxBatch?: number;
  /**
   * Keys with the same identity never share a query: a later one waits for the query of the earlier one.
   * For writes, where a key is a claim (a code redeemed twice in one turn must be redeemed once).
   */
  readonly identity?: (key: K) => string;
  /**
   * Whether a failed batch may be the fault of one key (a constraint one key violates): its keys then run
   * again alone, in arrival order, so that one bad key cannot fail the others. Never for failures every key
   * shares (the database is down): those fail the batch at once. Default: never.
   */
  readonly retryAlone?: (error: unknown) => boolean;
}

export class TurnBatcher<K, V> {
  private pending: Pending<K, V>[] = [];
  private readonly maxBatch: number;

  /**
   * @param loadMany answers one value per key, in the keys' order. It must be atomic (one statement), so that
   *   a failed call has changed nothing and may be tried again.
   */
  constructor(
    private readonly loadMany: LoadMany<K, V>,
    private readonly options: TurnBatcherOptions<K> = {},
  ) {
    this.maxBatch = options.maxBatch ?? 256;
  }

  load(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ key, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const all = this.pending;
    this.pending = [];
    for (const round of this.rounds(all)) {
      const batches: Promise<void>[] = [];
      for (let start = 0; start < round.length; start += this.maxBatch) {
        batches.push(this.run(round.slice(start, start + this.maxBatch)));
      }
      await Promise.all(batches);
    }
  }

  /** The turn's entries in rounds whose keys are distinct (one round when keys have no identity). */
  private rounds(entries: Pending<K, V>[]): Pending<K, V>[][] {
    const identity = this.options.identity;
    if (identity === undefined) return [entries];
    const rounds: { ids: Set<string>; entries: Pending<K, V>[] }[] = [];
    for (const entry of entries) {
      const id = identity(entry.key);
      let round = rounds.find((r) => !r.ids.has(id));
      if (round === undefined) {
        round = { ids: new Set(), entries: [] };
        rounds.push(round);
      }
      round.ids.add(id);
      round.entries.push(entry);
    }
    return rounds.map((r) => r.entries);
  }

  private async run(batch: readonly Pending<K, V>[]): Promise<void> {
    let values: readonly V[];
    try {
      values = await this.loadMany(batch.map((entry) => entry.key));
    } catch (error) {
      if (batch.length > 1 && this.options.retryAlone?.(error) === true) {
        // The failed statement changed nothing: each key runs again alone, in arrival order (so an earlier
        // request wins a clash with a later one), and settles on its own.
        for (const entry of batch) await this.run([entry]);
        return;
      }
      for (const entry of batch) entry.reject(error);
      return;
    }
    batch.forEach((entry, i) => entry.resolve(values[i] as V));
  }
}
