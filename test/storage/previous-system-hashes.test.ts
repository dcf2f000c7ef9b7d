/**
 * The index of the accounts whose hash still has the previous system's parameters (migration 0018), on both
 * databases: `hasPreviousSystemHashes` answers from it, so a refused sign-in asks it at the cost of one
 * look-up (docs/security.md#browser-sign-in-and-sessions).
 */
import { hash } from '@node-rs/argon2';
import { afterEach, beforeEach, expect, it } from 'vitest';
import pg from 'pg';
import { SqliteDatabase } from '../../src/storage/sqlite-driver.js';
import { PREVIOUS_SYSTEM_HASHES_ONLY } from '../../src/storage/users.js';
import type { NewUserRecord } from '../../src/storage/store.js';
import { type OpenedStore, openFreshStore } from '../helpers/databases.js';
import { describeEachDatabase } from '../helpers/fixture.js';

const NOW = Date.UTC(2026, 0, 15);

/** A local user with this hash (the rest as a new user gets it). */
function user(uin: number, passwordHash: string): NewUserRecord {
  return { uin, passwordHash, userGroup: 'user', createdAt: NOW, disabled: false, mustChangePassword: false };
}

describeEachDatabase('users with a previous-system hash', (database) => {
  let opened: OpenedStore;
  beforeEach(async () => {
    opened = await openFreshStore(database);
    await opened.store.migrate();
  });
  afterEach(async () => {
    await opened.dispose();
  });

  it('answers whether any is left: none, one imported, none once it is re-hashed', async () => {
    const { users } = opened.store;
    const today = await hash('a password', { memoryCost: 19_456, timeCost: 2, parallelism: 1 });
    const previous = await hash('a password', { memoryCost: 65_536, timeCost: 1, parallelism: 2 });
    for (let uin = 1; uin <= 50; uin++) expect(await users.insert(user(uin, today))).toBe(true);
    expect(await users.hasPreviousSystemHashes()).toBe(false);

    expect(await users.insert(user(51, previous))).toBe(true);
    expect(await users.hasPreviousSystemHashes()).toBe(true);

    expect(await users.update(51, { passwordHash: today })).toBe(true);
    expect(await users.hasPreviousSystemHashes()).toBe(false);
  });

  it('looks it up in the partial index, whose predicate the query states word for word', async () => {
    const query = `select 1 as found from users where ${PREVIOUS_SYSTEM_HASHES_ONLY} limit 1`;
    if (database === 'sqlite') {
      const db = new SqliteDatabase(opened.url.slice('sqlite:'.length), { readonly: true });
      try {
        const plan = db.prepare(`explain query plan ${query}`).all() as { detail: string }[];
        expect(plan.map((row) => row.detail).join('\n')).toContain('users_previous_system_hash');
      } finally {
        db.close();
      }
      return;
    }
    const client = new pg.Client({ connectionString: opened.url });
    await client.connect();
    try {
      // Which plan wins is the planner's estimate of cost; that the index can serve the query at all is this.
      await client.query('set enable_seqscan = off');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain ${query}`);
      expect(rows.map((row) => row['QUERY PLAN']).join('\n')).toContain('users_previous_system_hash');
    } finally {
      await client.end();
    }
  });
});
