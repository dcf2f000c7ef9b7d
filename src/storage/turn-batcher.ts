/**
 * Coalesces the calls that arrive in one turn of the event loop into one database call (the DataLoader
 * pattern); both databases use it (docs/architecture.md#batching).
 *
 * Why, on PostgreSQL: each query is a round trip, and a round trip costs the server far more CPU than the
 * query does: writing to the socket wakes a database process on another core (≈ 45 µs of this process's time
 * per write on the benchmark machine, where PostgreSQL itself answers 100k+ indexed selects a second). Under
 * load, the dozens of requests that a turn brings then share one query.
 *
 * Why, on SQLite: a commit is the cost (the WAL append and its sync), so the writes of one turn share one
 * IMMEDIATE transaction (`sqliteTransaction` below), and each caller is answered only after it committed.
 *
 * Alone, a request waits only for the end of the current turn (`setImmediate`).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { whileBusy } from './sqlite-busy.js';
import type { SqliteGate } from './transactions.js';

/**
 * Answers one value per key, in the keys' order. It must be atomic (one statement, or one transaction), so
 * that a failed call has changed nothing and may be tried again.
 */
export type LoadMany<K, V> = (keys: readonly K[]) => Promise<readonly V[]>;

interface Pending<K, V> {
  readonly key: K;
  readonly resolve: (value: V) => void;
  readonly reject: (error: unknown) => void;
}

export interface TurnBatcherOptions<K> {
  /** The most keys in one call; a larger turn is split (default 256). */
  readonly maxBatch?: number;
  /**
   * Keys with the same identity never share a call: a later one waits for the call of the earlier one.
   * For writes, where a key is a claim (a code redeemed twice in one turn must be redeemed once).
   */
  readonly identity?: (key: K) => string;
}

/**
 * The one retry rule: a failed batch is the fault of one key only when that key violated a constraint
 * (SQLite's SQLITE_CONSTRAINT_*, PostgreSQL's SQLSTATE class 23). Any other failure (the database is down,
 * busy or full) is every key's, and fails the batch at once.
 */
export function isOneKeysFault(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CONSTRAINT') || /^23[0-9A-Z]{3}$/.test(code));
}

/**
 * A SQLite `LoadMany`: every key's `work` in one IMMEDIATE transaction, rolled back whole if any throws. It
 * waits while another transaction is open on the connection (`gate`, transactions.ts): it would be nested in
 * it, and undone with it after its callers were answered. While another process holds the write lock, it
 * tries again on a timer (sqlite-busy.ts).
 */
export function sqliteTransaction<K, V>(
  database: BetterSqlite3.Database,
  gate: SqliteGate | undefined,
  work: (key: K) => V,
): LoadMany<K, V> {
  const all = database.transaction((keys: readonly K[]) => keys.map(work));
  return (keys) =>
    whileBusy(async () => {
      if (gate !== undefined && !gate.open) await gate.whenOpen();
      return all.immediate(keys);
    });
}

export class TurnBatcher<K, V> {
  private pending: Pending<K, V>[] = [];
  private readonly maxBatch: number;

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
      if (round.length <= this.maxBatch) {
        await this.run(round);
        continue;
      }
      const batches: Promise<void>[] = [];
      for (let start = 0; start < round.length; start += this.maxBatch) {
        batches.push(this.run(round.slice(start, start + this.maxBatch)));
      }
      await Promise.all(batches);
    }
  }

  /**
   * The turn's entries in rounds whose keys are distinct (one round when keys have no identity): each entry
   * joins the first round that does not hold its identity yet. Plain loops, no closure per entry: this runs
   * on every code redemption.
   */
  private rounds(entries: Pending<K, V>[]): Pending<K, V>[][] {
    const identity = this.options.identity;
    if (identity === undefined) return [entries];
    const rounds: Pending<K, V>[][] = [];
    const identities: Set<string>[] = [];
    for (const entry of entries) {
      const id = identity(entry.key);
      let r = 0;
      while (r < identities.length && identities[r]!.has(id)) r++;
      if (r === identities.length) {
        identities.push(new Set());
        rounds.push([]);
      }
      identities[r]!.add(id);
      rounds[r]!.push(entry);
    }
    return rounds;
  }

  private async run(batch: readonly Pending<K, V>[]): Promise<void> {
    let values: readonly V[];
    try {
      values = await this.loadMany(batch.map((entry) => entry.key));
    } catch (error) {
      if (batch.length > 1 && isOneKeysFault(error)) {
        // The failed call changed nothing: each key runs again alone, in arrival order (so an earlier
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
