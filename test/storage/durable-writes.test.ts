/**
 * User and app writes on SQLite are on disk before they are answered: each commits with
 * `synchronous = FULL` (which flushes the WAL), while every other write keeps `synchronous = NORMAL`
 * (src/storage/durable-writes.ts `writeDurably`).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDatabase } from '../../src/storage/sqlite-driver.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppRecord, UserRecord } from '../../src/storage/store.js';
import { type OpenedStore, openFreshStore } from '../helpers/databases.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0, 123);

const USER: UserRecord = {
  uin: 10001,
  passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$hash',
  userGroup: 'user',
  createdAt: NOW,
  disabled: false,
  mustChangePassword: false,
  name: null,
  email: null,
  groups: [],
  expiresAt: null,
  lastSignInAt: null,
  source: 'local',
};

const APP: AppRecord = {
  clientId: 'durableClient0001',
  name: 'Library',
  emoji: '📚',
  secretHash: 'a'.repeat(64),
  redirectUris: ['https://app.example.edu/callback'],
  createdAt: NOW,
  disabled: false,
  allowRefreshTokens: true,
  allowedGroups: [],
  postLogoutRedirectUris: [],
  backchannelLogoutUri: null,
  backchannelLogoutLast: null,
};

type Event = string;

describe('user and app writes on SQLite', () => {
  let opened: OpenedStore;
  let events: Event[];

  beforeEach(async () => {
    opened = await openFreshStore('sqlite');
    await opened.store.migrate();
    events = [];
    const pragma = SqliteDatabase.prototype.pragma;
    vi.spyOn(SqliteDatabase.prototype, 'pragma').mockImplementation(function (
      this: BetterSqlite3.Database,
      source: string,
      options?: BetterSqlite3.PragmaOptions,
    ) {
      if (source.startsWith('synchronous =')) {
        events.push(`${source}${this.inTransaction ? ' (inside a transaction)' : ''}`);
      }
      return pragma.call(this, source, options);
    });
    const prepare = SqliteDatabase.prototype.prepare;
    vi.spyOn(SqliteDatabase.prototype, 'prepare').mockImplementation(function (
      this: BetterSqlite3.Database,
      source: string,
    ) {
      const verb = /^\s*(insert into|update|delete from) "?(\w+)/i.exec(source);
      if (verb) events.push(`${verb[1]!.toLowerCase()} ${verb[2]}`);
      return prepare.call(this, source);
    } as typeof prepare);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await opened?.dispose();
  });

  it('commit at synchronous = FULL, set back to NORMAL once committed', async () => {
    const { store } = opened;
    expect(await store.users.insert(USER)).toBe(true);
    expect(await store.users.update(USER.uin, { disabled: true })).toBe(true);
    expect(await store.apps.insert(APP)).toBe(true);
    expect(await store.apps.update(APP.clientId, { name: 'Library 2' })).toBe(true);
    expect(events).toEqual([
      'synchronous = FULL',
      'insert into users',
      'synchronous = NORMAL',
      'synchronous = FULL',
      'update users',
      'synchronous = NORMAL',
      'synchronous = FULL',
      'insert into apps',
      'synchronous = NORMAL',
      'synchronous = FULL',
      'update apps',
      'synchronous = NORMAL',
    ]);
    expect(await store.users.find(USER.uin)).toEqual({ ...USER, disabled: true });
    expect((await store.apps.find(APP.clientId))?.name).toBe('Library 2');
  });

  it('deletes an app with everything issued to it in one FULL commit', async () => {
    const { store } = opened;
    await store.apps.insert(APP);
    events = [];
    expect(await store.apps.delete(APP.clientId)).toBe(true);
    expect(events).toEqual([
      'synchronous = FULL',
      'delete from authorization_codes',
      'delete from access_tokens',
      'delete from refresh_tokens',
      'delete from consents',
      'delete from session_apps',
      'delete from logout_deliveries',
      'delete from cas_tickets',
      'delete from device_authorizations',
      'delete from service_tokens',
      'delete from apps',
      'synchronous = NORMAL',
    ]);
    expect(await store.apps.find(APP.clientId)).toBeUndefined();
    expect(await store.apps.delete(APP.clientId)).toBe(false);
  });

  it('commit a store.transaction at synchronous = FULL, its user write included, set before BEGIN', async () => {
    const { store } = opened;
    await store.users.insert(USER);
    events = [];
    await store.transaction(async (tx) => {
      await tx.users.update(USER.uin, { disabled: true });
      await tx.tokens.revokeAllForUser(USER.uin);
    });
    expect(events).toEqual([
      'synchronous = FULL',
      'update users',
      'update access_tokens',
      'update refresh_tokens',
      'synchronous = NORMAL',
    ]);
    expect((await store.users.find(USER.uin))?.disabled).toBe(true);
  });

  it('leave every other write at synchronous = NORMAL', async () => {
    const { store } = opened;
    await store.users.insert(USER);
    events = [];
    await store.sessions.insert({
      idHash: 'session-1',
      sid: 'session-1-sid',
      uin: USER.uin,
      amr: ['pwd'],
      createdAt: NOW,
      expiresAt: NOW + 1000,
      lastSeenAt: NOW,
      idleExpiresAt: NOW + 1000,
      ip: null,
      userAgent: null,
      shared: false,
    });
    await store.throttles.hit('uin:10001', NOW, NOW - 1000);
    expect(events.filter((event) => event.startsWith('synchronous'))).toEqual([]);
  });
});
