/** What the database commands share (docs/interface.md#command-line): the store opened, migrated and closed. */
import { createAppContext, type AppContext } from '../app-context.js';
import { systemClock } from '../clock.js';
import type { Config } from '../config/config.js';
import { openStore } from '../storage/open-store.js';
import type { Store } from '../storage/store.js';

/** Runs `run` on the migrated database, and closes it however `run` ends. */
export async function withStore<T>(config: Config, run: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(config.database);
  try {
    await store.migrate();
    return await run(store);
  } finally {
    await store.close();
  }
}

/** `withStore` with the services a server has (on the system clock). */
export function withContext<T>(config: Config, run: (ctx: AppContext) => Promise<T>): Promise<T> {
  return withStore(config, (store) => run(createAppContext(config, store, systemClock)));
}
