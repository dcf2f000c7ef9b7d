import type { Store } from '../storage/store.js';

/**
 * Which database serves, and whether it answers: reads and commits a write (GET /readyz,
 * docs/operations.md#health-readiness-and-metrics).
 */
export class DatabaseStatus {
  constructor(private readonly store: Pick<Store, 'kind' | 'ping'>) {}

  get kind(): Store['kind'] {
    return this.store.kind;
  }

  /** Answers when the database reads and commits a write; throws what it threw otherwise. */
  ping(): Promise<void> {
    return this.store.ping();
  }
}
