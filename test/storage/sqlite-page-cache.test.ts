/**
 * The serving SQLite connection's page cache (src/storage/open-store.ts): held in the server's own memory, so
 * it is bounded below better-sqlite3's 16 MB default (docs/operations.md#requirements: peak RSS).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteDatabase } from '../../src/storage/sqlite-driver.js';
import { type OpenedStore, openFreshStore } from '../helpers/databases.js';

describe('the SQLite connection a store serves from', () => {
  let opened: OpenedStore | undefined;

  afterEach(async () => {
    vi.restoreAllMocks();
    await opened?.dispose();
  });

  it('keeps a page cache of 4 MiB', async () => {
    const connections: BetterSqlite3.Database[] = [];
    const pragma = SqliteDatabase.prototype.pragma;
    vi.spyOn(SqliteDatabase.prototype, 'pragma').mockImplementation(function (
      this: BetterSqlite3.Database,
      source: string,
      options?: BetterSqlite3.PragmaOptions,
    ) {
      if (source === 'journal_mode = WAL') connections.push(this);
      return pragma.call(this, source, options);
    });
    opened = await openFreshStore('sqlite');
    await opened.store.migrate();
    expect(connections).toHaveLength(1);
    // Negative: KiB, not pages.
    expect(pragma.call(connections[0]!, 'cache_size', { simple: true })).toBe(-4096);
    // Never truncates the WAL file itself: the checkpoint worker does, off the event loop.
    expect(pragma.call(connections[0]!, 'journal_size_limit', { simple: true })).toBe(-1);
  });
});
