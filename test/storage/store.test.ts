/**
 * The storage interface (src/storage/store.ts), method by method, with the same tests on SQLite and
 * PostgreSQL: the protocol code must never be able to tell which database is behind the Store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type {
  AccessTokenRecord,
  AppRecord,
  AuthorizationCodeRecord,
  RefreshTokenRecord,
  SessionRecord,
  SigningKeyRecord,
  Store,
  UserRecord,
} from '../../src/storage/store.js';
import { type OpenedStore, openFreshStore } from '../helpers/databases.js';
import { describeEachDatabase } from '../helpers/fixture.js';
import { migrationProvider } from '../../src/storage/migrations/index.js';
import { openStore } from '../../src/storage/open-store.js';

/** Every migration's name, in order. */
const ALL_MIGRATIONS = Object.keys(await migrationProvider.getMigrations()).sort();

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0, 123);
const HOUR = 3600_000;
const DAY = 24 * HOUR;
const MAX_UIN = Number.MAX_SAFE_INTEGER; // 2^53 − 1
const QQ_UIN = 1010553892; // > 2^31, as the previous system's QQ numbers

let serial = 0;
const unique = (prefix: string): string => `${prefix}-${++serial}-${Math.random().toString(36).slice(2, 8)}`;

function user(uin: number, overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    uin,
    passwordHash: `$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$hash${uin}`,
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
    ...overrides,
  };
}

function app(clientId: string, overrides: Partial<AppRecord> = {}): AppRecord {
  return {
    clientId,
    name: `App ${clientId}`,
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
    listed: false,
    homepageUrl: null,
    casServices: [],
    deviceGrant: false,
    clientCredentials: false,
    allowedScopes: [],
    ...overrides,
  };
}

function code(
  clientId: string,
  uin: number,
  overrides: Partial<AuthorizationCodeRecord> = {},
): AuthorizationCodeRecord {
  return {
    codeHash: unique('code'),
    clientId,
    uin,
    redirectUri: 'https://app.example.edu/callback',
    scope: 'openid offline_access',
    nonce: 'n-0S6_WzA2Mj',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    codeChallengeMethod: 'S256',
    authTime: NOW - 1000,
    createdAt: NOW,
    expiresAt: NOW + 600_000,
    usedAt: null,
    amr: ['pwd', 'otp', 'mfa'],
    sid: null,
    ...overrides,
  };
}

function accessToken(
  clientId: string,
  uin: number,
  overrides: Partial<AccessTokenRecord> = {},
): AccessTokenRecord {
  return {
    tokenHash: unique('at'),
    clientId,
    uin,
    scope: 'openid',
    codeHash: null,
    familyId: null,
    createdAt: NOW,
    expiresAt: NOW + 2 * HOUR,
    revoked: false,
    ...overrides,
  };
}

function refreshToken(
  clientId: string,
  uin: number,
  overrides: Partial<RefreshTokenRecord> = {},
): RefreshTokenRecord {
  return {
    tokenHash: unique('rt'),
    familyId: unique('family'),
    clientId,
    uin,
    scope: 'openid offline_access',
    authTime: NOW - 1000,
    codeHash: null,
    createdAt: NOW,
    expiresAt: NOW + 30 * DAY,
    rotatedAt: null,
    revoked: false,
    amr: ['hwk', 'mfa'],
    sid: null,
    ...overrides,
  };
}

function session(uin: number, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    idHash: unique('session'),
    sid: unique('sid'),
    uin,
    createdAt: NOW,
    expiresAt: NOW + HOUR,
    lastSeenAt: NOW,
    idleExpiresAt: NOW + HOUR,
    ip: '127.0.0.1',
    userAgent: null,
    shared: false,
    amr: ['pwd'],
    ...overrides,
  };
}

function signingKey(kid: string, overrides: Partial<SigningKeyRecord> = {}): SigningKeyRecord {
  return {
    kid,
    alg: 'ES256',
    privateJwk: JSON.stringify({ kty: 'EC', kid, d: 'private' }),
    publicJwk: JSON.stringify({ kty: 'EC', kid }),
    createdAt: NOW,
    ...overrides,
  };
}

describeEachDatabase('Store', (database) => {
  describe('migrate()', () => {
    it('applies the migrations on an empty database, then is a no-op the second time', async () => {
      const fresh = await openFreshStore(database);
      try {
        expect(await fresh.store.migrate()).toEqual(ALL_MIGRATIONS);
        await fresh.store.users.insert(user(10001));
        expect(await fresh.store.migrate()).toEqual([]);
        expect(await fresh.store.users.find(10001)).toEqual(user(10001));
      } finally {
        await fresh.dispose();
      }
    });

    if (database === 'postgres') {
      it('is safe when two instances migrate the same database at once', async () => {
        const fresh = await openFreshStore(database);
        const second = await openStore({ kind: 'postgres', url: fresh.url });
        try {
          const [a, b] = await Promise.all([fresh.store.migrate(), second.migrate()]);
          expect([...a, ...b].sort()).toEqual(ALL_MIGRATIONS);
          await expect(second.users.insert(user(10001))).resolves.toBe(true);
        } finally {
          await second.close();
          await fresh.dispose();
        }
      });

      // Several deployments (or test runs) may share one PostgreSQL database, each in its own schema.
      it('migrates its own schema while another schema of the same database is migrated already', async () => {
        const first = await openFreshStore(database);
        const second = await openFreshStore(database);
        try {
          expect(await first.store.migrate()).toEqual(ALL_MIGRATIONS);
          expect(await second.store.migrate()).toEqual(ALL_MIGRATIONS);
        } finally {
          await second.dispose();
          await first.dispose();
        }
      });
    }
  });

  describe('repositories', () => {
    let opened: OpenedStore;
    let store: Store;

    beforeEach(async () => {
      opened = await openFreshStore(database);
      store = opened.store;
      await store.migrate();
    });
    afterEach(async () => {
      await opened?.dispose();
    });

    /** A user and an app, the minimum that codes, tokens and consents refer to. */
    async function userAndApp(
      uin = 10001,
      clientId = unique('client'),
    ): Promise<{ uin: number; clientId: string }> {
      expect(await store.users.insert(user(uin))).toBe(true);
      expect(await store.apps.insert(app(clientId))).toBe(true);
      return { uin, clientId };
    }

    describe('ping()', () => {
      it('answers when the database is reachable', async () => {
        await expect(store.ping()).resolves.toBeUndefined();
      });
    });

    describe('users', () => {
      it('inserts a user and finds it with every field', async () => {
        const record = user(10001, { userGroup: 'member', disabled: true });
        expect(await store.users.insert(record)).toBe(true);
        expect(await store.users.find(10001)).toEqual(record);
      });

      it('refuses a duplicate uin and keeps the first user unchanged', async () => {
        await store.users.insert(user(10001, { userGroup: 'admin' }));
        expect(await store.users.insert(user(10001, { userGroup: 'user', passwordHash: 'other' }))).toBe(
          false,
        );
        expect(await store.users.find(10001)).toEqual(user(10001, { userGroup: 'admin' }));
      });

      it('answers undefined for an unknown uin', async () => {
        expect(await store.users.find(424242)).toBeUndefined();
      });

      it('round-trips uin 2^53−1 and 1010553892 (> 2^31) as JavaScript numbers, not strings', async () => {
        await store.users.insert(user(MAX_UIN));
        await store.users.insert(user(QQ_UIN));
        const max = await store.users.find(MAX_UIN);
        const qq = await store.users.find(QQ_UIN);
        expect(typeof max?.uin).toBe('number');
        expect(max?.uin).toBe(MAX_UIN);
        expect(typeof qq?.uin).toBe('number');
        expect(qq?.uin).toBe(QQ_UIN);
        expect(typeof qq?.createdAt).toBe('number');
        const listed = await store.users.list({ offset: 0, limit: 10 });
        expect(listed.users.map((u) => u.uin)).toEqual([QQ_UIN, MAX_UIN]);
        expect(listed.users.every((u) => typeof u.uin === 'number')).toBe(true);
        expect(typeof listed.total).toBe('number');
      });

      it('updates only the fields it is given, and answers false for an unknown uin', async () => {
        await store.users.insert(user(10001));
        expect(await store.users.update(10001, { userGroup: 'admin' })).toBe(true);
        expect(await store.users.find(10001)).toEqual(user(10001, { userGroup: 'admin' }));
        expect(await store.users.update(10001, { passwordHash: 'new-hash', disabled: true })).toBe(true);
        expect(await store.users.find(10001)).toEqual(
          user(10001, { userGroup: 'admin', passwordHash: 'new-hash', disabled: true }),
        );
        expect(await store.users.update(10001, {})).toBe(true);
        expect(await store.users.update(99999, { disabled: true })).toBe(false);
        expect(await store.users.update(99999, {})).toBe(false);
        expect(await store.users.find(99999)).toBeUndefined();
      });

      it('stores whether the password must be changed, and updates it', async () => {
        await store.users.insert(user(10001, { mustChangePassword: true }));
        expect(await store.users.find(10001)).toEqual(user(10001, { mustChangePassword: true }));
        expect(await store.users.update(10001, { passwordHash: 'new-hash', mustChangePassword: false })).toBe(
          true,
        );
        expect(await store.users.find(10001)).toEqual(user(10001, { passwordHash: 'new-hash' }));
      });

      it('lists users ordered by uin, with a uin-prefix search, a group filter, paging and the total', async () => {
        const members = [12301, 12302, 12303, 12304, 12305];
        for (const uin of members) await store.users.insert(user(uin, { userGroup: 'member' }));
        await store.users.insert(user(12399, { userGroup: 'admin' }));
        await store.users.insert(user(1230, { userGroup: 'member' })); // a prefix match too
        await store.users.insert(user(45123, { userGroup: 'member' })); // contains "123", does not start with it
        await store.users.insert(user(99999, { userGroup: 'user' }));

        const all = await store.users.list({ offset: 0, limit: 50 });
        expect(all.total).toBe(9);
        expect(all.users.map((u) => u.uin)).toEqual([
          1230, 12301, 12302, 12303, 12304, 12305, 12399, 45123, 99999,
        ]);

        const prefix = await store.users.list({ search: '123', offset: 0, limit: 50 });
        expect(prefix.users.map((u) => u.uin)).toEqual([1230, 12301, 12302, 12303, 12304, 12305, 12399]);
        expect(prefix.total).toBe(7);

        const prefixMembers = await store.users.list({
          search: '123',
          group: 'member',
          offset: 0,
          limit: 50,
        });
        expect(prefixMembers.users.map((u) => u.uin)).toEqual([1230, ...members]);
        expect(prefixMembers.total).toBe(6);

        const page = await store.users.list({ search: '123', group: 'member', offset: 2, limit: 3 });
        expect(page.users.map((u) => u.uin)).toEqual([12302, 12303, 12304]);
        expect(page.total).toBe(6);

        const beyond = await store.users.list({ search: '123', offset: 100, limit: 3 });
        expect(beyond).toEqual({ users: [], total: 7 });

        const admins = await store.users.list({ group: 'admin', offset: 0, limit: 50 });
        expect(admins.users.map((u) => u.uin)).toEqual([12399]);
        expect(admins.total).toBe(1);

        const none = await store.users.list({ search: '777', offset: 0, limit: 50 });
        expect(none).toEqual({ users: [], total: 0 });
      });

      it('countAdmins counts only enabled admins', async () => {
        expect(await store.users.countAdmins()).toBe(0);
        await store.users.insert(user(1, { userGroup: 'admin' }));
        await store.users.insert(user(2, { userGroup: 'admin' }));
        await store.users.insert(user(3, { userGroup: 'admin', disabled: true }));
        await store.users.insert(user(4, { userGroup: 'member' }));
        await store.users.insert(user(5, { userGroup: 'user' }));
        expect(await store.users.countAdmins()).toBe(2);
        await store.users.update(2, { disabled: true });
        expect(await store.users.countAdmins()).toBe(1);
        await store.users.update(3, { disabled: false });
        await store.users.update(1, { userGroup: 'member' });
        expect(await store.users.countAdmins()).toBe(1);
      });
    });

    describe('apps', () => {
      it('findClient reads what client authentication and the grants need, and nothing else', async () => {
        const record = app('ClientOnly4Auth0', {
          disabled: true,
          allowRefreshTokens: false,
          allowedGroups: ['teachers'],
        });
        await store.apps.insert(record);
        expect(await store.apps.findClient(record.clientId)).toEqual({
          clientId: record.clientId,
          secretHash: record.secretHash,
          disabled: true,
          allowRefreshTokens: false,
          allowedGroups: ['teachers'],
          deviceGrant: false,
          clientCredentials: false,
          allowedScopes: [],
        });
        await store.apps.update(record.clientId, { disabled: false, allowRefreshTokens: true });
        expect(await store.apps.findClient(record.clientId)).toMatchObject({
          disabled: false,
          allowRefreshTokens: true,
        });
        expect(await store.apps.findClient('NoSuchClient0000')).toBeUndefined();
      });

      it('inserts an app and finds it with its redirect URIs in order and every field', async () => {
        const record = app('7RYtLq8VA45Fiprc', {
          name: '图书馆 Library',
          emoji: '👩‍💻',
          redirectUris: [
            'https://library.example.edu/callback?tenant=a&x=%20y',
            'http://127.0.0.1:8000/cb',
            'https://library.example.edu/回调',
          ],
          disabled: true,
          allowRefreshTokens: false,
          listed: true,
          homepageUrl: 'https://library.example.edu/',
          casServices: ['https://library.example.edu/portal', 'http://127.0.0.1:8000/'],
        });
        expect(await store.apps.insert(record)).toBe(true);
        expect(await store.apps.find('7RYtLq8VA45Fiprc')).toEqual(record);
      });

      it('refuses a duplicate client_id and keeps the first app', async () => {
        await store.apps.insert(app('dup', { name: 'First' }));
        expect(await store.apps.insert(app('dup', { name: 'Second' }))).toBe(false);
        expect((await store.apps.find('dup'))?.name).toBe('First');
      });

      it('answers undefined for an unknown client_id', async () => {
        expect(await store.apps.find('nope')).toBeUndefined();
      });

      it('updates only the fields it is given, and answers false for an unknown app', async () => {
        await store.apps.insert(app('a1'));
        expect(
          await store.apps.update('a1', {
            name: 'Renamed',
            emoji: '🇨🇳',
            redirectUris: ['https://new.example.edu/cb', 'https://new.example.edu/cb2'],
          }),
        ).toBe(true);
        expect(await store.apps.find('a1')).toEqual(
          app('a1', {
            name: 'Renamed',
            emoji: '🇨🇳',
            redirectUris: ['https://new.example.edu/cb', 'https://new.example.edu/cb2'],
          }),
        );
        expect(
          await store.apps.update('a1', {
            secretHash: 'b'.repeat(64),
            disabled: true,
            allowRefreshTokens: false,
          }),
        ).toBe(true);
        expect(await store.apps.find('a1')).toMatchObject({
          name: 'Renamed',
          secretHash: 'b'.repeat(64),
          disabled: true,
          allowRefreshTokens: false,
        });
        expect(await store.apps.update('a1', { listed: true, homepageUrl: 'https://a1.example.edu/' })).toBe(
          true,
        );
        expect(await store.apps.find('a1')).toMatchObject({
          listed: true,
          homepageUrl: 'https://a1.example.edu/',
        });
        expect(await store.apps.update('a1', { homepageUrl: null })).toBe(true);
        expect((await store.apps.find('a1'))?.homepageUrl).toBeNull();
        expect(await store.apps.update('a1', {})).toBe(true);
        expect(await store.apps.update('missing', { name: 'x' })).toBe(false);
        expect(await store.apps.update('missing', {})).toBe(false);
      });

      it('lists apps newest first', async () => {
        await store.apps.insert(app('old', { createdAt: NOW - 2000 }));
        await store.apps.insert(app('new', { createdAt: NOW }));
        await store.apps.insert(app('mid', { createdAt: NOW - 1000 }));
        expect((await store.apps.list()).map((a) => a.clientId)).toEqual(['new', 'mid', 'old']);
      });

      it('delete removes the app with its codes, tokens and consents, and leaves other apps alone', async () => {
        const { uin, clientId } = await userAndApp();
        await store.apps.insert(app('other'));
        const doomedCode = code(clientId, uin);
        const keptCode = code('other', uin);
        await store.codes.insert(doomedCode);
        await store.codes.insert(keptCode);
        const doomedAccess = accessToken(clientId, uin);
        const keptAccess = accessToken('other', uin);
        const doomedRefresh = refreshToken(clientId, uin);
        const keptRefresh = refreshToken('other', uin);
        expect(await store.tokens.redeemCode(doomedCode.codeHash, NOW, doomedAccess, doomedRefresh)).toBe(
          true,
        );
        expect(await store.tokens.redeemCode(keptCode.codeHash, NOW, keptAccess, keptRefresh)).toBe(true);
        await store.consents.upsert({ uin, clientId, scope: null, grantedAt: NOW });
        await store.consents.upsert({ uin, clientId: 'other', scope: null, grantedAt: NOW });

        expect(await store.apps.delete(clientId)).toBe(true);

        expect(await store.apps.find(clientId)).toBeUndefined();
        expect(await store.codes.find(doomedCode.codeHash)).toBeUndefined();
        expect(await store.tokens.findAccessToken(doomedAccess.tokenHash)).toBeUndefined();
        expect(await store.tokens.findRefreshToken(doomedRefresh.tokenHash)).toBeUndefined();
        expect(await store.consents.find(uin, clientId)).toBeUndefined();

        expect(await store.apps.find('other')).toBeDefined();
        expect(await store.codes.find(keptCode.codeHash)).toBeDefined();
        expect(await store.tokens.findAccessToken(keptAccess.tokenHash)).toBeDefined();
        expect(await store.tokens.findRefreshToken(keptRefresh.tokenHash)).toBeDefined();
        expect(await store.consents.find(uin, 'other')).toBeDefined();
      });

      it('delete answers false for an unknown app', async () => {
        expect(await store.apps.delete('missing')).toBe(false);
      });
    });

    describe('sessions', () => {
      it('finds a session only while it has not expired', async () => {
        const record = session(10001, { expiresAt: NOW + 1000 });
        await store.sessions.insert(record);
        expect(await store.sessions.findActive(record.idHash, NOW)).toEqual(record);
        expect(await store.sessions.findActive(record.idHash, NOW + 999)).toEqual(record);
        expect(await store.sessions.findActive(record.idHash, NOW + 1000)).toBeUndefined();
        expect(await store.sessions.findActive(record.idHash, NOW + 5000)).toBeUndefined();
        expect(await store.sessions.findActive('unknown', NOW)).toBeUndefined();
      });

      it('round-trips a uin above 2^31 as a number', async () => {
        const record = session(QQ_UIN);
        await store.sessions.insert(record);
        const found = await store.sessions.findActive(record.idHash, NOW);
        expect(found?.uin).toBe(QQ_UIN);
        expect(typeof found?.uin).toBe('number');
      });

      it('delete ends one session; deleteForUser ends every session of that user only', async () => {
        const a = session(10001);
        const b = session(10001);
        const c = session(10001);
        const other = session(10002);
        for (const s of [a, b, c, other]) await store.sessions.insert(s);
        await store.sessions.delete(a.idHash);
        expect(await store.sessions.findActive(a.idHash, NOW)).toBeUndefined();
        expect(await store.sessions.findActive(b.idHash, NOW)).toBeDefined();
        await store.sessions.deleteForUser(10001);
        expect(await store.sessions.findActive(b.idHash, NOW)).toBeUndefined();
        expect(await store.sessions.findActive(c.idHash, NOW)).toBeUndefined();
        expect(await store.sessions.findActive(other.idHash, NOW)).toEqual(other);
      });
    });

    describe('codes', () => {
      it('inserts a code and finds it with every field, PKCE and nulls included', async () => {
        const { uin, clientId } = await userAndApp(QQ_UIN);
        const full = code(clientId, uin);
        const bare = code(clientId, uin, {
          scope: null,
          nonce: null,
          codeChallenge: null,
          codeChallengeMethod: null,
        });
        await store.codes.insert(full);
        await store.codes.insert(bare);
        expect(await store.codes.find(full.codeHash)).toEqual(full);
        expect(await store.codes.find(bare.codeHash)).toEqual(bare);
        expect(await store.codes.find('unknown')).toBeUndefined();
      });

      it('finds a code together with the user who granted it, in one query', async () => {
        const { uin, clientId } = await userAndApp(MAX_UIN);
        const granted = code(clientId, uin);
        await store.codes.insert(granted);
        const {
          uin: subjectUin,
          userGroup,
          createdAt,
          disabled,
          expiresAt,
          name,
          email,
          groups,
        } = user(MAX_UIN);
        // What tokens are issued about (TokenSubject): never the password hash.
        const found = await store.codes.findWithGrantor(granted.codeHash);
        expect(found).toEqual({
          code: granted,
          user: { uin: subjectUin, userGroup, createdAt, disabled, expiresAt, name, email, groups },
        });
        expect(found?.user).not.toHaveProperty('passwordHash');
        await store.users.update(MAX_UIN, { disabled: true });
        expect((await store.codes.findWithGrantor(granted.codeHash))?.user?.disabled).toBe(true);
        expect(await store.codes.findWithGrantor('unknown')).toBeUndefined();
      });

      it('finds a code whose user no longer exists, without a user', async () => {
        const { clientId } = await userAndApp(QQ_UIN);
        const orphan = code(clientId, QQ_UIN + 1);
        await store.codes.insert(orphan);
        expect(await store.codes.findWithGrantor(orphan.codeHash)).toEqual({ code: orphan, user: undefined });
      });
    });

    describe('tokens', () => {
      it('redeemCode marks the code used and stores the tokens the first time, and answers false the second time', async () => {
        const { uin, clientId } = await userAndApp();
        const c = code(clientId, uin);
        await store.codes.insert(c);
        const first = accessToken(clientId, uin, { codeHash: c.codeHash });
        const firstRefresh = refreshToken(clientId, uin, { codeHash: c.codeHash });
        expect(await store.tokens.redeemCode(c.codeHash, NOW + 10, first, firstRefresh)).toBe(true);
        expect((await store.codes.find(c.codeHash))?.usedAt).toBe(NOW + 10);
        expect(await store.tokens.findAccessToken(first.tokenHash)).toEqual(first);
        expect(await store.tokens.findRefreshToken(firstRefresh.tokenHash)).toEqual(firstRefresh);

        const second = accessToken(clientId, uin, { codeHash: c.codeHash });
        const secondRefresh = refreshToken(clientId, uin, { codeHash: c.codeHash });
        expect(await store.tokens.redeemCode(c.codeHash, NOW + 20, second, secondRefresh)).toBe(false);
        expect((await store.codes.find(c.codeHash))?.usedAt).toBe(NOW + 10);
        expect(await store.tokens.findAccessToken(second.tokenHash)).toBeUndefined();
        expect(await store.tokens.findRefreshToken(secondRefresh.tokenHash)).toBeUndefined();
      });

      it('redeemCode stores what each code of one batch was redeemed for, with or without a refresh token', async () => {
        const { uin, clientId } = await userAndApp();
        const codes = [code(clientId, uin), code(clientId, uin), code(clientId, uin)];
        for (const c of codes) await store.codes.insert(c);
        const access = codes.map((c) => accessToken(clientId, uin, { codeHash: c.codeHash }));
        const refresh = refreshToken(clientId, uin, { codeHash: codes[1]!.codeHash });
        // One turn: on PostgreSQL one batch, in which only the second code has a refresh token.
        expect(
          await Promise.all([
            store.tokens.redeemCode(codes[0]!.codeHash, NOW + 10, access[0]!, undefined),
            store.tokens.redeemCode(codes[1]!.codeHash, NOW + 10, access[1]!, refresh),
            store.tokens.redeemCode(codes[2]!.codeHash, NOW + 10, access[2]!, undefined),
          ]),
        ).toEqual([true, true, true]);
        for (const token of access)
          expect(await store.tokens.findAccessToken(token.tokenHash)).toEqual(token);
        expect(await store.tokens.findRefreshToken(refresh.tokenHash)).toEqual(refresh);
        // A batch with no refresh token at all.
        const more = [code(clientId, uin), code(clientId, uin)];
        for (const c of more) await store.codes.insert(c);
        const moreAccess = more.map((c) => accessToken(clientId, uin, { codeHash: c.codeHash }));
        expect(
          await Promise.all(
            more.map((c, i) => store.tokens.redeemCode(c.codeHash, NOW + 20, moreAccess[i]!, undefined)),
          ),
        ).toEqual([true, true]);
        for (const token of moreAccess)
          expect(await store.tokens.findAccessToken(token.tokenHash)).toEqual(token);
        for (const c of [...codes, ...more])
          expect((await store.codes.find(c.codeHash))?.usedAt).not.toBeNull();
      });

      it('redeemCode succeeds for exactly one of two concurrent redemptions of the same code', async () => {
        const { uin, clientId } = await userAndApp();
        for (let round = 0; round < 5; round++) {
          const c = code(clientId, uin);
          await store.codes.insert(c);
          const tokens = [
            accessToken(clientId, uin, { codeHash: c.codeHash }),
            accessToken(clientId, uin, { codeHash: c.codeHash }),
          ];
          const results = await Promise.all(
            tokens.map((t) => store.tokens.redeemCode(c.codeHash, NOW, t, refreshToken(clientId, uin))),
          );
          expect(results.filter(Boolean)).toHaveLength(1);
          const stored = await Promise.all(tokens.map((t) => store.tokens.findAccessToken(t.tokenHash)));
          expect(stored.filter((t) => t !== undefined)).toHaveLength(1);
          expect(results.indexOf(true)).toBe(stored.findIndex((t) => t !== undefined));
        }
      });

      it('redeemCode lets one failing redemption fail alone, leaving its code unused and the others stored', async () => {
        const { uin, clientId } = await userAndApp();
        const codes = [code(clientId, uin), code(clientId, uin), code(clientId, uin)];
        for (const c of codes) await store.codes.insert(c);
        const good = accessToken(clientId, uin, { codeHash: codes[0]!.codeHash });
        const clash = {
          ...accessToken(clientId, uin, { codeHash: codes[1]!.codeHash }),
          tokenHash: good.tokenHash,
        };
        const alsoGood = accessToken(clientId, uin, { codeHash: codes[2]!.codeHash });
        // Submitted together, so SQLite groups them into one commit.
        const outcomes = await Promise.allSettled([
          store.tokens.redeemCode(codes[0]!.codeHash, NOW, good, undefined),
          store.tokens.redeemCode(codes[1]!.codeHash, NOW, clash, undefined),
          store.tokens.redeemCode(codes[2]!.codeHash, NOW, alsoGood, undefined),
        ]);
        expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
        expect((await store.codes.find(codes[0]!.codeHash))?.usedAt).toBe(NOW);
        expect((await store.codes.find(codes[1]!.codeHash))?.usedAt).toBeNull();
        expect((await store.codes.find(codes[2]!.codeHash))?.usedAt).toBe(NOW);
        expect(await store.tokens.findAccessToken(alsoGood.tokenHash)).toBeDefined();
      });

      it('redeemCode answers false, storing nothing, for an unknown code', async () => {
        const { uin, clientId } = await userAndApp();
        const t = accessToken(clientId, uin);
        expect(await store.tokens.redeemCode('no-such-code', NOW, t, undefined)).toBe(false);
        expect(await store.tokens.findAccessToken(t.tokenHash)).toBeUndefined();
      });

      it('revokeByCode revokes the access tokens and the refresh-token families issued from that code only', async () => {
        const { uin, clientId } = await userAndApp();
        const replayed = code(clientId, uin);
        const innocent = code(clientId, uin);
        await store.codes.insert(replayed);
        await store.codes.insert(innocent);
        const family = unique('family');
        const access = accessToken(clientId, uin, { codeHash: replayed.codeHash, familyId: family });
        const refresh = refreshToken(clientId, uin, { codeHash: replayed.codeHash, familyId: family });
        await store.tokens.redeemCode(replayed.codeHash, NOW, access, refresh);
        // The family grew by one rotation: its successors carry no code hash, only the family.
        const rotatedAccess = accessToken(clientId, uin, { familyId: family });
        const rotatedRefresh = refreshToken(clientId, uin, { familyId: family });
        expect(
          await store.tokens.rotateRefreshToken(refresh.tokenHash, NOW + 1, rotatedAccess, rotatedRefresh),
        ).toBe(true);
        const otherAccess = accessToken(clientId, uin, { codeHash: innocent.codeHash });
        const otherRefresh = refreshToken(clientId, uin, { codeHash: innocent.codeHash });
        await store.tokens.redeemCode(innocent.codeHash, NOW, otherAccess, otherRefresh);

        await store.tokens.revokeByCode(replayed.codeHash);

        expect((await store.tokens.findAccessToken(access.tokenHash))?.revoked).toBe(true);
        expect((await store.tokens.findRefreshToken(refresh.tokenHash))?.revoked).toBe(true);
        expect((await store.tokens.findAccessToken(rotatedAccess.tokenHash))?.revoked).toBe(true);
        expect((await store.tokens.findRefreshToken(rotatedRefresh.tokenHash))?.revoked).toBe(true);
        expect(await store.tokens.findActiveOwner(rotatedAccess.tokenHash, NOW)).toBeUndefined();
        expect((await store.tokens.findAccessToken(otherAccess.tokenHash))?.revoked).toBe(false);
        expect((await store.tokens.findRefreshToken(otherRefresh.tokenHash))?.revoked).toBe(false);
      });

      it('redeemCode redeems many codes submitted in one turn, each with its own tokens', async () => {
        const { uin, clientId } = await userAndApp();
        const codes = Array.from({ length: 40 }, () => code(clientId, uin));
        for (const c of codes) await store.codes.insert(c);
        const issued = codes.map((c, i) => ({
          access: accessToken(clientId, uin, { codeHash: c.codeHash, scope: `s${i}` }),
          refresh: i % 2 === 0 ? refreshToken(clientId, uin, { codeHash: c.codeHash }) : undefined,
        }));
        const results = await Promise.all(
          codes.map((c, i) =>
            store.tokens.redeemCode(c.codeHash, NOW + i, issued[i]!.access, issued[i]!.refresh),
          ),
        );
        expect(results).toEqual(codes.map(() => true));
        for (const [i, c] of codes.entries()) {
          expect((await store.codes.find(c.codeHash))?.usedAt).toBe(NOW + i);
          expect(await store.tokens.findAccessToken(issued[i]!.access.tokenHash)).toEqual(issued[i]!.access);
          const refresh = issued[i]!.refresh;
          if (refresh) expect(await store.tokens.findRefreshToken(refresh.tokenHash)).toEqual(refresh);
        }
      });

      it('findActiveOwner answers many look-ups made in one turn, each its own answer', async () => {
        const { uin, clientId } = await userAndApp(QQ_UIN);
        const live = [accessToken(clientId, uin), accessToken(clientId, uin)];
        const expired = accessToken(clientId, uin, { expiresAt: NOW + 10 });
        for (const t of [...live, expired]) {
          const c = code(clientId, uin);
          await store.codes.insert(c);
          expect(await store.tokens.redeemCode(c.codeHash, NOW, t, undefined)).toBe(true);
        }
        const lookups: [string, number][] = [
          [live[0]!.tokenHash, NOW],
          ['unknown', NOW],
          [expired.tokenHash, NOW],
          [live[1]!.tokenHash, NOW],
          [expired.tokenHash, NOW + 10],
          [live[0]!.tokenHash, NOW],
        ];
        const owners = await Promise.all(lookups.map(([hash, at]) => store.tokens.findActiveOwner(hash, at)));
        expect(owners.map((owner) => owner?.user.uin)).toEqual([
          QQ_UIN,
          undefined,
          QQ_UIN,
          QQ_UIN,
          undefined,
          QQ_UIN,
        ]);
        expect(owners[3]?.token.scope).toBe(live[1]!.scope);
      });

      it('finds apps and codes asked for in one turn, each its own answer', async () => {
        const first = await userAndApp(10001);
        const second = await userAndApp(10002);
        const codes = [code(first.clientId, first.uin), code(second.clientId, second.uin)];
        for (const c of codes) await store.codes.insert(c);
        const apps = await Promise.all(
          [second.clientId, 'unknown', first.clientId, second.clientId].map((id) => store.apps.find(id)),
        );
        expect(apps.map((a) => a?.clientId)).toEqual([
          second.clientId,
          undefined,
          first.clientId,
          second.clientId,
        ]);
        const found = await Promise.all(
          [codes[1]!.codeHash, 'unknown', codes[0]!.codeHash].map((h) => store.codes.findWithGrantor(h)),
        );
        expect(found.map((f) => f?.code.codeHash)).toEqual([
          codes[1]!.codeHash,
          undefined,
          codes[0]!.codeHash,
        ]);
        expect(found.map((f) => f?.user?.uin)).toEqual([second.uin, undefined, first.uin]);
      });

      describe('findActiveOwner', () => {
        it('answers the token with its user when the token, the user and the app are all good', async () => {
          const { uin, clientId } = await userAndApp(QQ_UIN);
          await store.users.update(uin, { userGroup: 'admin' });
          const t = accessToken(clientId, uin);
          const c = code(clientId, uin);
          await store.codes.insert(c);
          await store.tokens.redeemCode(c.codeHash, NOW, t, undefined);
          const owner = await store.tokens.findActiveOwner(t.tokenHash, NOW);
          const u = user(QQ_UIN, { userGroup: 'admin' });
          expect(owner).toEqual({
            token: { clientId: t.clientId, scope: t.scope, createdAt: t.createdAt, expiresAt: t.expiresAt },
            user: { uin: u.uin, userGroup: u.userGroup, createdAt: u.createdAt },
          });
          expect(typeof owner?.user.uin).toBe('number');
          expect(typeof owner?.user.createdAt).toBe('number');
        });

        async function issued(): Promise<{ uin: number; clientId: string; token: AccessTokenRecord }> {
          const { uin, clientId } = await userAndApp();
          const c = code(clientId, uin);
          await store.codes.insert(c);
          const token = accessToken(clientId, uin, { expiresAt: NOW + 1000 });
          await store.tokens.redeemCode(c.codeHash, NOW, token, undefined);
          expect(await store.tokens.findActiveOwner(token.tokenHash, NOW)).toBeDefined();
          return { uin, clientId, token };
        }

        it('answers undefined for an unknown token', async () => {
          expect(await store.tokens.findActiveOwner('unknown', NOW)).toBeUndefined();
        });

        it('answers undefined once the token is revoked', async () => {
          const { token } = await issued();
          await store.tokens.revokeAccessToken(token.tokenHash);
          expect(await store.tokens.findActiveOwner(token.tokenHash, NOW)).toBeUndefined();
          expect((await store.tokens.findAccessToken(token.tokenHash))?.revoked).toBe(true);
        });

        it('answers undefined once the token has expired', async () => {
          const { token } = await issued();
          expect(await store.tokens.findActiveOwner(token.tokenHash, NOW + 999)).toBeDefined();
          expect(await store.tokens.findActiveOwner(token.tokenHash, NOW + 1000)).toBeUndefined();
          expect(await store.tokens.findActiveOwner(token.tokenHash, NOW + DAY)).toBeUndefined();
        });

        it('answers undefined while the user is disabled', async () => {
          const { uin, token } = await issued();
          await store.users.update(uin, { disabled: true });
          expect(await store.tokens.findActiveOwner(token.tokenHash, NOW)).toBeUndefined();
          await store.users.update(uin, { disabled: false });
          expect(await store.tokens.findActiveOwner(token.tokenHash, NOW)).toBeDefined();
        });

        it('answers undefined while the app is disabled', async () => {
          const { clientId, token } = await issued();
          await store.apps.update(clientId, { disabled: true });
          expect(await store.tokens.findActiveOwner(token.tokenHash, NOW)).toBeUndefined();
        });

        it('answers undefined once the app is deleted', async () => {
          const { clientId, token } = await issued();
          await store.apps.delete(clientId);
          expect(await store.tokens.findActiveOwner(token.tokenHash, NOW)).toBeUndefined();
        });
      });

      it('revokeAccessToken revokes only that token', async () => {
        const { uin, clientId } = await userAndApp();
        const c1 = code(clientId, uin);
        const c2 = code(clientId, uin);
        await store.codes.insert(c1);
        await store.codes.insert(c2);
        const t1 = accessToken(clientId, uin);
        const t2 = accessToken(clientId, uin);
        await store.tokens.redeemCode(c1.codeHash, NOW, t1, undefined);
        await store.tokens.redeemCode(c2.codeHash, NOW, t2, undefined);
        await store.tokens.revokeAccessToken(t1.tokenHash);
        expect(await store.tokens.findAccessToken(t1.tokenHash)).toEqual({ ...t1, revoked: true });
        expect(await store.tokens.findAccessToken(t2.tokenHash)).toEqual(t2);
      });

      it('rotateRefreshToken marks the old token rotated and stores its successors, once only', async () => {
        const { uin, clientId } = await userAndApp();
        const c = code(clientId, uin);
        await store.codes.insert(c);
        const family = unique('family');
        const original = refreshToken(clientId, uin, { familyId: family, codeHash: c.codeHash });
        await store.tokens.redeemCode(
          c.codeHash,
          NOW,
          accessToken(clientId, uin, { familyId: family }),
          original,
        );

        const nextAccess = accessToken(clientId, uin, { familyId: family });
        const nextRefresh = refreshToken(clientId, uin, { familyId: family });
        expect(
          await store.tokens.rotateRefreshToken(original.tokenHash, NOW + 5, nextAccess, nextRefresh),
        ).toBe(true);
        expect((await store.tokens.findRefreshToken(original.tokenHash))?.rotatedAt).toBe(NOW + 5);
        expect(await store.tokens.findAccessToken(nextAccess.tokenHash)).toEqual(nextAccess);
        expect(await store.tokens.findRefreshToken(nextRefresh.tokenHash)).toEqual(nextRefresh);

        const replayAccess = accessToken(clientId, uin, { familyId: family });
        const replayRefresh = refreshToken(clientId, uin, { familyId: family });
        expect(
          await store.tokens.rotateRefreshToken(original.tokenHash, NOW + 9, replayAccess, replayRefresh),
        ).toBe(false);
        expect((await store.tokens.findRefreshToken(original.tokenHash))?.rotatedAt).toBe(NOW + 5);
        expect(await store.tokens.findAccessToken(replayAccess.tokenHash)).toBeUndefined();
        expect(await store.tokens.findRefreshToken(replayRefresh.tokenHash)).toBeUndefined();
      });

      it('rotateRefreshToken succeeds for exactly one of two concurrent rotations', async () => {
        const { uin, clientId } = await userAndApp();
        const c = code(clientId, uin);
        await store.codes.insert(c);
        const original = refreshToken(clientId, uin);
        await store.tokens.redeemCode(c.codeHash, NOW, accessToken(clientId, uin), original);
        const results = await Promise.all(
          [0, 1].map(() =>
            store.tokens.rotateRefreshToken(
              original.tokenHash,
              NOW + 1,
              accessToken(clientId, uin),
              refreshToken(clientId, uin, { familyId: original.familyId }),
            ),
          ),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it('rotateRefreshToken answers false for a revoked or unknown refresh token', async () => {
        const { uin, clientId } = await userAndApp();
        const c = code(clientId, uin);
        await store.codes.insert(c);
        const original = refreshToken(clientId, uin);
        await store.tokens.redeemCode(c.codeHash, NOW, accessToken(clientId, uin), original);
        await store.tokens.revokeFamily(original.familyId);
        const successor = refreshToken(clientId, uin);
        expect(
          await store.tokens.rotateRefreshToken(
            original.tokenHash,
            NOW,
            accessToken(clientId, uin),
            successor,
          ),
        ).toBe(false);
        expect(await store.tokens.findRefreshToken(successor.tokenHash)).toBeUndefined();
        expect(
          await store.tokens.rotateRefreshToken(
            'unknown',
            NOW,
            accessToken(clientId, uin),
            refreshToken(clientId, uin),
          ),
        ).toBe(false);
      });

      it('revokeFamily revokes every refresh and access token of that family and nothing else', async () => {
        const { uin, clientId } = await userAndApp();
        const c1 = code(clientId, uin);
        const c2 = code(clientId, uin);
        await store.codes.insert(c1);
        await store.codes.insert(c2);
        const family = unique('family');
        const a1 = accessToken(clientId, uin, { familyId: family });
        const r1 = refreshToken(clientId, uin, { familyId: family });
        await store.tokens.redeemCode(c1.codeHash, NOW, a1, r1);
        const a2 = accessToken(clientId, uin, { familyId: family });
        const r2 = refreshToken(clientId, uin, { familyId: family });
        await store.tokens.rotateRefreshToken(r1.tokenHash, NOW, a2, r2);
        const otherAccess = accessToken(clientId, uin, { familyId: 'another-family' });
        const otherRefresh = refreshToken(clientId, uin, { familyId: 'another-family' });
        await store.tokens.redeemCode(c2.codeHash, NOW, otherAccess, otherRefresh);

        await store.tokens.revokeFamily(family);

        for (const t of [a1, a2])
          expect((await store.tokens.findAccessToken(t.tokenHash))?.revoked).toBe(true);
        for (const t of [r1, r2])
          expect((await store.tokens.findRefreshToken(t.tokenHash))?.revoked).toBe(true);
        expect((await store.tokens.findAccessToken(otherAccess.tokenHash))?.revoked).toBe(false);
        expect((await store.tokens.findRefreshToken(otherRefresh.tokenHash))?.revoked).toBe(false);
      });

      it("revokeForUserAndApp revokes that user's tokens for that app only", async () => {
        const { uin, clientId } = await userAndApp(10001);
        await store.users.insert(user(10002));
        await store.apps.insert(app('other-app'));
        const grants: Array<[number, string]> = [
          [10001, clientId],
          [10001, 'other-app'],
          [10002, clientId],
        ];
        const issuedTokens: Array<{ access: AccessTokenRecord; refresh: RefreshTokenRecord }> = [];
        for (const [who, client] of grants) {
          const c = code(client, who);
          await store.codes.insert(c);
          const access = accessToken(client, who);
          const refresh = refreshToken(client, who);
          await store.tokens.redeemCode(c.codeHash, NOW, access, refresh);
          issuedTokens.push({ access, refresh });
        }

        await store.tokens.revokeForUserAndApp(uin, clientId);

        const revoked = await Promise.all(
          issuedTokens.map(async ({ access, refresh }) => [
            (await store.tokens.findAccessToken(access.tokenHash))?.revoked,
            (await store.tokens.findRefreshToken(refresh.tokenHash))?.revoked,
          ]),
        );
        expect(revoked).toEqual([
          [true, true],
          [false, false],
          [false, false],
        ]);
      });

      describe('security events', () => {
        /** One access and one refresh token for each (uin, clientId), through redeemed codes. */
        async function issue(
          grants: ReadonlyArray<readonly [number, string]>,
        ): Promise<Array<{ access: AccessTokenRecord; refresh: RefreshTokenRecord }>> {
          const issued = [];
          for (const [who, client] of grants) {
            const c = code(client, who);
            await store.codes.insert(c);
            const access = accessToken(client, who);
            const refresh = refreshToken(client, who);
            expect(await store.tokens.redeemCode(c.codeHash, NOW, access, refresh)).toBe(true);
            issued.push({ access, refresh });
          }
          return issued;
        }

        async function revokedFlags(
          issued: Array<{ access: AccessTokenRecord; refresh: RefreshTokenRecord }>,
        ): Promise<Array<[boolean | undefined, boolean | undefined]>> {
          return Promise.all(
            issued.map(async ({ access, refresh }): Promise<[boolean | undefined, boolean | undefined]> => [
              (await store.tokens.findAccessToken(access.tokenHash))?.revoked,
              (await store.tokens.findRefreshToken(refresh.tokenHash))?.revoked,
            ]),
          );
        }

        async function twoUsersTwoApps(): Promise<{ clientId: string }> {
          const { clientId } = await userAndApp(10001);
          await store.users.insert(user(10002));
          await store.apps.insert(app('other-app'));
          return { clientId };
        }

        it('revokeAllForUser revokes every access and refresh token of that user, for every app', async () => {
          const { clientId } = await twoUsersTwoApps();
          const issued = await issue([
            [10001, clientId],
            [10001, 'other-app'],
            [10002, clientId],
          ]);
          await store.tokens.revokeAllForUser(10001);
          expect(await revokedFlags(issued)).toEqual([
            [true, true],
            [true, true],
            [false, false],
          ]);
        });

        it('revokeForApp revokes every access and refresh token of that app, for every user', async () => {
          const { clientId } = await twoUsersTwoApps();
          const issued = await issue([
            [10001, clientId],
            [10002, clientId],
            [10001, 'other-app'],
          ]);
          await store.tokens.revokeForApp(clientId);
          expect(await revokedFlags(issued)).toEqual([
            [true, true],
            [true, true],
            [false, false],
          ]);
        });

        it("revokeRefreshForApp revokes that app's refresh tokens only, leaving its access tokens", async () => {
          const { clientId } = await twoUsersTwoApps();
          const issued = await issue([
            [10001, clientId],
            [10002, clientId],
            [10001, 'other-app'],
          ]);
          await store.tokens.revokeRefreshForApp(clientId);
          expect(await revokedFlags(issued)).toEqual([
            [false, true],
            [false, true],
            [false, false],
          ]);
        });

        it("voidForUser marks that user's redeemable codes used, leaving used, expired and other codes", async () => {
          const { clientId } = await twoUsersTwoApps();
          const mine = [code(clientId, 10001), code('other-app', 10001)];
          const used = code(clientId, 10001, { usedAt: NOW - 1000 });
          const expired = code(clientId, 10001, { expiresAt: NOW - 1 });
          const theirs = code(clientId, 10002);
          for (const c of [...mine, used, expired, theirs]) await store.codes.insert(c);

          expect(await store.codes.voidForUser(10001, NOW)).toBe(2);

          for (const c of mine) expect((await store.codes.find(c.codeHash))?.usedAt).toBe(NOW);
          expect((await store.codes.find(used.codeHash))?.usedAt).toBe(NOW - 1000);
          expect((await store.codes.find(expired.codeHash))?.usedAt).toBeNull();
          expect((await store.codes.find(theirs.codeHash))?.usedAt).toBeNull();
          // A voided code can no longer be redeemed: it counts as used.
          expect(
            await store.tokens.redeemCode(mine[0]!.codeHash, NOW, accessToken(clientId, 10001), undefined),
          ).toBe(false);
        });

        it("voidForUserAndApp voids that user's codes for that app only", async () => {
          const { clientId } = await twoUsersTwoApps();
          const target = code(clientId, 10001);
          const others = [code('other-app', 10001), code(clientId, 10002)];
          for (const c of [target, ...others]) await store.codes.insert(c);
          expect(await store.codes.voidForUserAndApp(10001, clientId, NOW)).toBe(1);
          expect((await store.codes.find(target.codeHash))?.usedAt).toBe(NOW);
          for (const c of others) expect((await store.codes.find(c.codeHash))?.usedAt).toBeNull();
        });

        it("voidForApp voids that app's codes for every user only", async () => {
          const { clientId } = await twoUsersTwoApps();
          const targets = [code(clientId, 10001), code(clientId, 10002)];
          const other = code('other-app', 10001);
          for (const c of [...targets, other]) await store.codes.insert(c);
          expect(await store.codes.voidForApp(clientId, NOW)).toBe(2);
          for (const c of targets) expect((await store.codes.find(c.codeHash))?.usedAt).toBe(NOW);
          expect((await store.codes.find(other.codeHash))?.usedAt).toBeNull();
        });
      });
    });

    describe('consents', () => {
      it('upsert records a consent, then replaces its scope and time', async () => {
        const { uin, clientId } = await userAndApp();
        await store.consents.upsert({ uin, clientId, scope: 'openid', grantedAt: NOW });
        expect(await store.consents.find(uin, clientId)).toEqual({
          uin,
          clientId,
          scope: 'openid',
          grantedAt: NOW,
        });
        await store.consents.upsert({ uin, clientId, scope: null, grantedAt: NOW + 1 });
        expect(await store.consents.find(uin, clientId)).toEqual({
          uin,
          clientId,
          scope: null,
          grantedAt: NOW + 1,
        });
      });

      it('delete withdraws a consent and answers whether there was one', async () => {
        const { uin, clientId } = await userAndApp();
        await store.consents.upsert({ uin, clientId, scope: null, grantedAt: NOW });
        expect(await store.consents.delete(uin, clientId)).toBe(true);
        expect(await store.consents.find(uin, clientId)).toBeUndefined();
        expect(await store.consents.delete(uin, clientId)).toBe(false);
      });

      it("listForUser answers that user's consents, newest first, with each app's name and emoji", async () => {
        await store.users.insert(user(QQ_UIN));
        await store.users.insert(user(10002));
        await store.apps.insert(app('library', { name: 'Library', emoji: '📚' }));
        await store.apps.insert(app('coding', { name: 'Coding Club', emoji: '👩‍💻' }));
        await store.consents.upsert({
          uin: QQ_UIN,
          clientId: 'library',
          scope: 'openid',
          grantedAt: NOW - 10,
        });
        await store.consents.upsert({ uin: QQ_UIN, clientId: 'coding', scope: null, grantedAt: NOW });
        await store.consents.upsert({ uin: 10002, clientId: 'library', scope: null, grantedAt: NOW });

        expect(await store.consents.listForUser(QQ_UIN)).toEqual([
          { uin: QQ_UIN, clientId: 'coding', scope: null, grantedAt: NOW, name: 'Coding Club', emoji: '👩‍💻' },
          {
            uin: QQ_UIN,
            clientId: 'library',
            scope: 'openid',
            grantedAt: NOW - 10,
            name: 'Library',
            emoji: '📚',
          },
        ]);
        expect(await store.consents.listForUser(424242)).toEqual([]);
      });
    });

    describe('throttles', () => {
      it('counts attempts atomically, restarting the count when the window is over', async () => {
        expect(await store.throttles.get('uin:10001')).toBeUndefined();
        expect(await store.throttles.hit('uin:10001', NOW, NOW - 60_000)).toEqual({
          failures: 1,
          windowStart: NOW,
          lockedUntil: 0,
        });
        expect((await store.throttles.hit('uin:10001', NOW + 1, NOW - 60_000)).failures).toBe(2);
        // The window that started at NOW is over for a hit that says so: the count starts again.
        expect(await store.throttles.hit('uin:10001', NOW + 5, NOW)).toEqual({
          failures: 1,
          windowStart: NOW + 5,
          lockedUntil: 0,
        });
      });

      it('counts every one of many simultaneous attempts', async () => {
        await Promise.all(
          Array.from({ length: 20 }, () => store.throttles.hit('ip:10.0.0.1', NOW, NOW - 60_000)),
        );
        expect((await store.throttles.get('ip:10.0.0.1'))?.failures).toBe(20);
      });

      it('locks only forward, refunds never below zero, and deletes one key', async () => {
        await store.throttles.hit('uin:10001', NOW, NOW - 60_000);
        await store.throttles.lock('uin:10001', NOW + 30_000);
        await store.throttles.lock('uin:10001', NOW + 10_000);
        expect((await store.throttles.get('uin:10001'))?.lockedUntil).toBe(NOW + 30_000);
        await store.throttles.refund('uin:10001');
        await store.throttles.refund('uin:10001');
        expect((await store.throttles.get('uin:10001'))?.failures).toBe(0);
        await store.throttles.hit('ip:127.0.0.1', NOW, NOW - 60_000);
        await store.throttles.delete('uin:10001');
        expect(await store.throttles.get('uin:10001')).toBeUndefined();
        expect((await store.throttles.get('ip:127.0.0.1'))?.failures).toBe(1);
      });
    });

    describe('signing keys', () => {
      it('inserting the same kid twice keeps one key, the first', async () => {
        await store.signingKeys.insert(signingKey('k1'));
        await store.signingKeys.insert(signingKey('k1', { publicJwk: '{"other":true}', createdAt: NOW + 1 }));
        expect(await store.signingKeys.list()).toEqual([signingKey('k1')]);
      });

      it('lists keys oldest first', async () => {
        await store.signingKeys.insert(signingKey('new', { createdAt: NOW + 10 }));
        await store.signingKeys.insert(signingKey('old', { createdAt: NOW - 10 }));
        expect((await store.signingKeys.list()).map((k) => k.kid)).toEqual(['old', 'new']);
      });
    });

    describe('purgeExpired()', () => {
      it('removes only expired rows (used codes a day past expiry) and reports how many', async () => {
        const { uin, clientId } = await userAndApp();
        const oldCode = code(clientId, uin, { expiresAt: NOW - DAY - 1 });
        const recentlyExpiredCode = code(clientId, uin, { expiresAt: NOW - 1 });
        const liveCode = code(clientId, uin);
        for (const c of [oldCode, recentlyExpiredCode, liveCode]) await store.codes.insert(c);

        const expiredAccess = accessToken(clientId, uin, { expiresAt: NOW - 1 });
        const liveAccess = accessToken(clientId, uin);
        const expiredRefresh = refreshToken(clientId, uin, { expiresAt: NOW - 1 });
        const liveRefresh = refreshToken(clientId, uin);
        await store.tokens.redeemCode(recentlyExpiredCode.codeHash, NOW - 2, expiredAccess, expiredRefresh);
        await store.tokens.redeemCode(liveCode.codeHash, NOW, liveAccess, liveRefresh);

        const expiredSession = session(uin, { expiresAt: NOW - 1 });
        const liveSession = session(uin);
        await store.sessions.insert(expiredSession);
        await store.sessions.insert(liveSession);

        await store.throttles.hit('stale', NOW - 2 * HOUR, NOW - 3 * HOUR);
        await store.throttles.lock('stale', NOW - HOUR);
        await store.throttles.hit('locked', NOW - 2 * HOUR, NOW - 3 * HOUR);
        await store.throttles.lock('locked', NOW + HOUR);
        await store.throttles.hit('recent', NOW - 60_000, NOW - 2 * HOUR);

        expect(await store.purgeExpired(NOW)).toEqual({
          codes: 1,
          accessTokens: 1,
          refreshTokens: 1,
          sessions: 1,
          throttles: 1,
          resetCodes: 0,
          auditEvents: 0,
          logoutDeliveries: 0,
        });

        expect(await store.codes.find(oldCode.codeHash)).toBeUndefined();
        expect(await store.codes.find(recentlyExpiredCode.codeHash)).toBeDefined();
        expect(await store.codes.find(liveCode.codeHash)).toBeDefined();
        expect(await store.tokens.findAccessToken(expiredAccess.tokenHash)).toBeUndefined();
        expect(await store.tokens.findAccessToken(liveAccess.tokenHash)).toEqual(liveAccess);
        expect(await store.tokens.findRefreshToken(expiredRefresh.tokenHash)).toBeUndefined();
        expect(await store.tokens.findRefreshToken(liveRefresh.tokenHash)).toEqual(liveRefresh);
        expect(await store.sessions.findActive(liveSession.idHash, NOW)).toEqual(liveSession);
        expect(await store.throttles.get('stale')).toBeUndefined();
        expect(await store.throttles.get('locked')).toBeDefined();
        expect(await store.throttles.get('recent')).toBeDefined();
        expect(await store.users.find(uin)).toBeDefined();
        expect(await store.apps.find(clientId)).toBeDefined();

        expect(await store.purgeExpired(NOW)).toEqual({
          codes: 0,
          accessTokens: 0,
          refreshTokens: 0,
          sessions: 0,
          throttles: 0,
          resetCodes: 0,
          auditEvents: 0,
          logoutDeliveries: 0,
        });
      });
    });
  });
});
