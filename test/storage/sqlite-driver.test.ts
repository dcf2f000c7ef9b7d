/**
 * docs/operations.md#node-versions: better-sqlite3 13 on Node 22 and later (12 aborts on Node 24), 12 on
 * Node 20 (13 crashes there); the server, the CLI and these tests all open SQLite through the one chosen.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { SqliteDatabase, sqliteDriverPackage } from '../../src/storage/sqlite-driver.js';

const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);

describe('the SQLite driver', () => {
  it('is better-sqlite3 13 from Node 22 on and the Node 20 build before', () => {
    expect(sqliteDriverPackage(20)).toBe('better-sqlite3-node20');
    expect(sqliteDriverPackage(22)).toBe('better-sqlite3');
    expect(sqliteDriverPackage(24)).toBe('better-sqlite3');
  });

  it(`loads the major version meant for this Node (${process.versions.node}) and opens a database`, () => {
    const name = sqliteDriverPackage(nodeMajor);
    const { version } = require(`${name}/package.json`) as { version: string };
    expect(Number(version.split('.')[0])).toBe(nodeMajor >= 22 ? 13 : 12);
    expect(SqliteDatabase).toBe(require(name));
    const db = new SqliteDatabase(':memory:');
    try {
      expect(db.prepare('select 1 + 1 as two').get()).toEqual({ two: 2 });
    } finally {
      db.close();
    }
  });
});
