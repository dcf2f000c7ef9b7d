/**
 * User and app changes on SQLite are made durable before they are answered: after such a write commits, the
 * WAL file is flushed to disk (what `synchronous = FULL` does at every commit). Everything else keeps
 * `synchronous = NORMAL` (src/storage/open-store.ts), which survives a crash of the process but, on a power
 * loss, may lose the commits since the last checkpoint (the checkpointer runs every second).
 *
 * Why only these: a lost token or session costs a user one more sign-in, but a lost password change, group
 * change, disabled account or newly registered app (whose secret was shown once) is a silent security or
 * support problem. Measured on the development VM (150 MB database, WAL, single-row commits): 0.011 ms per
 * commit at NORMAL, 0.185 ms at FULL; a real disk's flush takes 1–10 ms. Those changes are rare (admin
 * actions, a password re-hash at a user's first sign-in), so they pay it; the hot paths (codes, tokens,
 * sessions) would pay it on every request, so they do not.
 */
import { open } from 'node:fs/promises';
import type { AppRepository, Store, UserRepository } from '../storage/store.js';

async function flush(file: string): Promise<void> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return; // No WAL file: a checkpoint emptied and removed it, after flushing the database file.
  }
  try {
    // fsync flushes the file, whichever descriptor wrote it: the frames the commit just appended.
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The store, with user and app writes flushed to disk before they resolve. */
export function withDurableAccountWrites(store: Store, databaseFile: string): Store {
  const walFile = `${databaseFile}-wal`;
  const durable =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const result = await write(...args);
      await flush(walFile);
      return result;
    };
  const users: UserRepository = Object.assign(Object.create(store.users) as UserRepository, {
    insert: durable(store.users.insert.bind(store.users)),
    update: durable(store.users.update.bind(store.users)),
  });
  const apps: AppRepository = Object.assign(Object.create(store.apps) as AppRepository, {
    insert: durable(store.apps.insert.bind(store.apps)),
    update: durable(store.apps.update.bind(store.apps)),
    delete: durable(store.apps.delete.bind(store.apps)),
  });
  // Every other member is the store's own (looked up through the prototype, so `this` still works).
  return Object.assign(Object.create(store) as Store, { users, apps });
}
