/**
 * Direct access to the database campus-sso created (its own migrations, src/storage/migrations/), for what
 * is too slow to mint over HTTP: one-time authorization codes and up to a million live access tokens.
 * Codes and tokens are minted and stored as the server mints and stores them (src/oauth/credentials.ts: a
 * time-prefixed opaque value, kept under its key), times in epoch ms.
 * All of the bench's SQL is in this one file.
 */
import { rmSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDatabase } from '../../src/storage/sqlite-driver.js';
import pg from 'pg';
import { credentialKey, newCredential } from '../../src/oauth/credentials.js';

export interface Grantee {
  readonly clientId: string;
  readonly uin: number;
  readonly redirectUri: string;
}

export interface CampusDatabase {
  readonly kind: 'sqlite' | 'postgres';
  /** The server's DATABASE_URL. */
  readonly url: string;
  /** Stores one unused, unexpired code per value (no PKCE, no scope: a plain OAuth 2.0 code). */
  insertCodes(codes: readonly string[], grantee: Grantee): Promise<void>;
  /**
   * Adds `count` live (unrevoked, unexpired) access tokens; answers the plaintext of every
   * `knownEvery`-th one, so requests can use tokens spread over the whole table.
   */
  insertTokens(count: number, knownEvery: number, grantee: Grantee): Promise<string[]>;
  countLiveTokens(): Promise<number>;
  /**
   * PostgreSQL: the process ids of the database server's backends serving this database (campus-sso's
   * pool), so their CPU time can be counted with the server's. Absent for SQLite, which runs in-process.
   */
  backendPids?(): Promise<number[]>;
  /** Removes the database (file or PostgreSQL database). */
  drop(): Promise<void>;
}

const CODE_TTL_MS = 10 * 60 * 1000;
const TOKEN_TTL_MS = 2 * 60 * 60 * 1000;
const BATCH = 10_000;

/** Opaque values exactly like the server's own codes and tokens, issued now. */
export function newCredentials(count: number): string[] {
  return Array.from({ length: count }, () => newCredential(Date.now()));
}

/**
 * One batch of token rows: every `knownEvery`-th row is a token whose plaintext is kept; the others are as
 * live as any other row, but their plaintext is thrown away.
 */
function tokenBatch(size: number, offset: number, knownEvery: number): { hashes: string[]; known: string[] } {
  const hashes: string[] = [];
  const known: string[] = [];
  for (let i = 0; i < size; i++) {
    const token = newCredential(Date.now());
    hashes.push(credentialKey(token));
    if ((offset + i) % knownEvery === 0) known.push(token);
  }
  return { hashes, known };
}

class SqliteCampusDatabase implements CampusDatabase {
  readonly kind = 'sqlite';
  readonly url: string;

  constructor(private readonly file: string) {
    this.url = `sqlite:${file}`;
  }

  /** Opened per call and closed after, so the bench holds no lock or page cache while the server runs. */
  private withDb<T>(work: (db: BetterSqlite3.Database) => T): T {
    const db = new SqliteDatabase(this.file);
    db.pragma('busy_timeout = 10000');
    try {
      return work(db);
    } finally {
      db.close();
    }
  }

  async insertCodes(codes: readonly string[], grantee: Grantee): Promise<void> {
    const now = Date.now();
    this.withDb((db) => {
      const insert = db.prepare(
        `INSERT INTO authorization_codes
           (code_hash, client_id, uin, redirect_uri, scope, nonce, code_challenge, code_challenge_method,
            auth_time, created_at, expires_at, used_at)
         VALUES (?, ?, ?, ?, NULL, NULL, NULL, NULL, ?, ?, ?, NULL)`,
      );
      db.transaction(() => {
        for (const code of codes) {
          insert.run(
            credentialKey(code),
            grantee.clientId,
            grantee.uin,
            grantee.redirectUri,
            now,
            now,
            now + CODE_TTL_MS,
          );
        }
      })();
    });
  }

  async insertTokens(count: number, knownEvery: number, grantee: Grantee): Promise<string[]> {
    const now = Date.now();
    return this.withDb((db) => {
      const insert = db.prepare(
        `INSERT INTO access_tokens
           (token_hash, client_id, uin, scope, code_hash, family_id, created_at, expires_at, revoked)
         VALUES (?, ?, ?, NULL, NULL, NULL, ?, ?, 0)`,
      );
      const known: string[] = [];
      // One transaction for the whole insert (the "bulk insert in one transaction").
      db.transaction(() => {
        for (let offset = 0; offset < count; offset += BATCH) {
          const batch = tokenBatch(Math.min(BATCH, count - offset), offset, knownEvery);
          for (const hash of batch.hashes) {
            insert.run(hash, grantee.clientId, grantee.uin, now, now + TOKEN_TTL_MS);
          }
          known.push(...batch.known);
        }
      })();
      return known;
    });
  }

  async countLiveTokens(): Promise<number> {
    const now = Date.now();
    return this.withDb((db) => {
      const row = db
        .prepare('SELECT count(*) AS n FROM access_tokens WHERE revoked = 0 AND expires_at > ?')
        .get(now) as { n: number };
      return row.n;
    });
  }

  async drop(): Promise<void> {
    for (const suffix of ['', '-wal', '-shm']) rmSync(this.file + suffix, { force: true });
  }
}

class PostgresCampusDatabase implements CampusDatabase {
  readonly kind = 'postgres';

  constructor(
    private readonly serverUrl: string,
    private readonly name: string,
  ) {}

  get url(): string {
    return `${this.serverUrl}/${this.name}`;
  }

  private async withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  async create(asyncCommit: boolean): Promise<void> {
    await this.withClient(`${this.serverUrl}/postgres`, async (c) => {
      await c.query(`CREATE DATABASE "${this.name}"`);
      // Diagnosis only (BENCH_PG_ASYNC_COMMIT=1): commits stop waiting for the WAL flush, the durability
      // campus-sso's SQLite setting (WAL, synchronous=NORMAL) has. Never the default of a reported run.
      if (asyncCommit) await c.query(`ALTER DATABASE "${this.name}" SET synchronous_commit = off`);
    });
  }

  async insertCodes(codes: readonly string[], grantee: Grantee): Promise<void> {
    const now = Date.now();
    await this.withClient(this.url, async (client) => {
      await client.query('BEGIN');
      for (let offset = 0; offset < codes.length; offset += BATCH) {
        const hashes = codes.slice(offset, offset + BATCH).map(credentialKey);
        await client.query(
          `INSERT INTO authorization_codes
             (code_hash, client_id, uin, redirect_uri, auth_time, created_at, expires_at)
           SELECT h, $2, $3, $4, $5, $5, $6 FROM unnest($1::text[]) AS h`,
          [hashes, grantee.clientId, grantee.uin, grantee.redirectUri, now, now + CODE_TTL_MS],
        );
      }
      await client.query('COMMIT');
    });
  }

  async insertTokens(count: number, knownEvery: number, grantee: Grantee): Promise<string[]> {
    const now = Date.now();
    return this.withClient(this.url, async (client) => {
      const known: string[] = [];
      await client.query('BEGIN');
      for (let offset = 0; offset < count; offset += BATCH) {
        const batch = tokenBatch(Math.min(BATCH, count - offset), offset, knownEvery);
        await client.query(
          `INSERT INTO access_tokens (token_hash, client_id, uin, created_at, expires_at, revoked)
           SELECT h, $2, $3, $4, $5, 0 FROM unnest($1::text[]) AS h`,
          [batch.hashes, grantee.clientId, grantee.uin, now, now + TOKEN_TTL_MS],
        );
        known.push(...batch.known);
      }
      await client.query('COMMIT');
      // Fresh statistics, as autovacuum would give a table this size in production.
      await client.query('ANALYZE access_tokens');
      return known;
    });
  }

  async countLiveTokens(): Promise<number> {
    return this.withClient(this.url, async (client) => {
      const result = await client.query<{ n: string }>(
        'SELECT count(*) AS n FROM access_tokens WHERE revoked = 0 AND expires_at > $1',
        [Date.now()],
      );
      return Number(result.rows[0]?.n ?? 0);
    });
  }

  async backendPids(): Promise<number[]> {
    return this.withClient(this.url, async (client) => {
      const result = await client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [this.name],
      );
      return result.rows.map((row) => Number(row.pid));
    });
  }

  async drop(): Promise<void> {
    await this.withClient(`${this.serverUrl}/postgres`, (c) =>
      c.query(`DROP DATABASE IF EXISTS "${this.name}" WITH (FORCE)`),
    );
  }
}

export function sqliteDatabase(file: string): CampusDatabase {
  return new SqliteCampusDatabase(file);
}

export async function postgresDatabase(serverUrl: string, asyncCommit = false): Promise<CampusDatabase> {
  const database = new PostgresCampusDatabase(serverUrl, `campus_sso_bench_${process.pid}_${Date.now()}`);
  await database.create(asyncCommit);
  return database;
}
