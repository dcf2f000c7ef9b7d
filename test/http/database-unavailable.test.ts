/**
 * docs/operations.md#when-the-database-is-unavailable, in the server's own process: every kind of endpoint
 * answers 503 with Retry-After, in its own convention, when the database is unavailable; /readyz commits a
 * write and answers within 2 s. (A real network failing under the real server: database-outage.test.ts.)
 */
import { SqliteDatabase as Database } from '../../src/storage/sqlite-driver.js';
import pg from 'pg';
import { afterEach, expect, it, vi } from 'vitest';
import type { Store } from '../../src/storage/store.js';
import { describeOnDatabases, REDIRECT_URI } from '../helpers/fixture.js';
import { json } from '../helpers/http.js';

/** The error better-sqlite3 throws on a full disk. */
function diskFull(): Error {
  return Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
}

/** Every query of the store's repositories fails with `error` until the mocks are restored. */
function failEveryQuery(store: Store, error: () => Error): void {
  const repositories = [
    store.users,
    store.apps,
    store.sessions,
    store.codes,
    store.tokens,
    store.consents,
    store.throttles,
    store.signingKeys,
  ] as unknown as Record<string, unknown>[];
  for (const repository of repositories) {
    const names = new Set([
      ...Object.getOwnPropertyNames(repository),
      ...Object.getOwnPropertyNames(Object.getPrototypeOf(repository) as object),
    ]);
    for (const name of names) {
      if (name === 'constructor' || typeof repository[name] !== 'function') continue;
      vi.spyOn(repository as Record<string, () => Promise<unknown>>, name).mockImplementation(() =>
        Promise.reject(error()),
      );
    }
  }
}

afterEach(() => vi.restoreAllMocks());

describeOnDatabases(
  'any endpoint while the database is unavailable',
  { transport: 'inject', databases: ['sqlite'], client: true, user: 'admin' },
  ({ server, client, user }) => {
    it('answers the token endpoint 503 temporarily_unavailable with Retry-After, never cached', async () => {
      failEveryQuery(server.ctx.store, diskFull);
      const response = await server.fetch(`/v1/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: 'x'.repeat(51),
          redirect_uri: REDIRECT_URI,
          client_id: client.clientId,
          client_secret: client.clientSecret,
        }),
      });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await json(response)).toEqual({
        error: 'temporarily_unavailable',
        error_description: expect.any(String),
      });
    });

    it('answers the legacy endpoints 503 with msg starting temporarily_unavailable', async () => {
      failEveryQuery(server.ctx.store, diskFull);
      const response = await server.fetch(`/v1/oauth2/get-user-info`, {
        headers: { authorization: `Bearer ${'t'.repeat(51)}` },
      });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      const body = await json<{ code: number; msg: string }>(response);
      expect(body.code).toBe(99);
      expect(body.msg).toMatch(/^temporarily_unavailable: /);
    });

    it('answers sign-in, the session and the admin API 503 envelope code 99 with Retry-After', async () => {
      failEveryQuery(server.ctx.store, diskFull);
      for (const response of [
        await user.browser.login(user.uin, user.password),
        await user.browser.call('GET', '/v1/account/me'),
        await user.browser.call('GET', '/v1/admin/users'),
      ]) {
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('5');
        expect(await json(response)).toEqual({ code: 99, msg: expect.any(String), data: {} });
      }
    });

    it('still answers 500 to an error that is not an outage', async () => {
      failEveryQuery(server.ctx.store, () => new TypeError('a bug'));
      const response = await user.browser.call('GET', '/v1/account/me');
      expect(response.status).toBe(500);
      expect(response.headers.get('retry-after')).toBeNull();
    });
  },
);

describeOnDatabases('GET /readyz', { transport: 'inject' }, ({ server, database }) => {
  /** Runs `statement` on the server's database through a connection of its own. */
  async function onDatabase(statement: string): Promise<void> {
    if (database === 'sqlite') {
      const connection = new Database(server.databaseUrl.slice('sqlite:'.length));
      try {
        connection.exec(statement);
      } finally {
        connection.close();
      }
      return;
    }
    const connection = new pg.Client({ connectionString: server.databaseUrl });
    await connection.connect();
    try {
      await connection.query(statement);
    } finally {
      await connection.end();
    }
  }

  const refuseWrites =
    database === 'sqlite'
      ? `create trigger refuse_writes before update on readiness begin select raise(abort, 'disk full'); end`
      : `create function refuse_writes() returns trigger language plpgsql as
           $$ begin raise exception 'disk full' using errcode = '53100'; end $$;
         create trigger refuse_writes before update on readiness for each row execute function refuse_writes()`;
  const allowWrites =
    database === 'sqlite'
      ? 'drop trigger refuse_writes'
      : 'drop trigger refuse_writes on readiness; drop function refuse_writes()';

  it('answers 200 when the database reads and commits a write', async () => {
    const response = await server.fetch(`/readyz`);
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ status: 'ok', database });
  });

  it('answers 503 while writes fail (reads still work), and 200 once they succeed again', async () => {
    await onDatabase(refuseWrites);
    try {
      const response = await server.fetch(`/readyz`);
      expect(response.status).toBe(503);
      expect(await json(response)).toEqual({ status: 'unavailable', database });
    } finally {
      await onDatabase(allowWrites);
    }
    expect((await server.fetch(`/readyz`)).status).toBe(200);
  });

  it('answers 503 within 2 s when the database does not answer', async () => {
    vi.spyOn(server.ctx.store, 'ping').mockImplementation(() => new Promise(() => undefined));
    const started = Date.now();
    const response = await server.fetch(`/readyz`);
    expect(response.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(2_500);
  });
});
