/**
 * The SQLite driver for this Node version: better-sqlite3 13 on Node 22 and later, 12 on Node 20
 * (docs/operations.md#node-versions).
 *
 * Why two: better-sqlite3 up to 12 wraps its objects in Node's header-only `node::ObjectWrap`, and compiled
 * against Node 24.19's or a later 24.x's headers that destructor aborts the process when a garbage
 * collection runs outside JavaScript (`Assertion failed: (env) != nullptr`): a server on Node 24 died within
 * seconds of its first sign-ins. Version 13 is built on Node-API and is free of it, but needs Node 22 (on
 * Node 20 it crashes when loaded). Version 12 is installed beside it as an optional dependency
 * (`better-sqlite3-node20`) for Node 20 alone. Both have the same API; the types are 12's.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The driver's package for a Node `major` version. */
export function sqliteDriverPackage(major: number): 'better-sqlite3' | 'better-sqlite3-node20' {
  return major >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';
}

function loadDriver(): typeof BetterSqlite3 {
  const name = sqliteDriverPackage(Number(process.versions.node.split('.')[0]));
  try {
    return require(name) as typeof BetterSqlite3;
  } catch (error) {
    throw new Error(
      `the SQLite driver ${name} for Node ${process.versions.node} is not installed or did not build; ` +
        `run npm ci again (it needs a C++ compiler on Node 20), or use Node 22 or later`,
      { cause: error },
    );
  }
}

/** The resolved entry of that package, for a worker thread to load the same driver (sqlite-checkpointer.ts). */
export function sqliteDriverPath(): string {
  return require.resolve(sqliteDriverPackage(Number(process.versions.node.split('.')[0])));
}

/** better-sqlite3's `Database` constructor, from the package that is safe on this Node. */
export const SqliteDatabase: typeof BetterSqlite3 = loadDriver();
