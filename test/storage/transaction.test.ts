/**
 * `store.transaction` (docs/architecture.md#transactions): what its work writes commits together or not at all,
 * on both databases; on SQLite no hand-written statement runs inside a transaction it is not part of; and on
 * PostgreSQL a connection broken in the middle of a security change leaves the old state, never a new
 * password beside the old one's sessions and tokens.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { UserService } from '../../src/domain/users.js';
import { openStore } from '../../src/storage/open-store.js';
import type { Repositories, Store } from '../../src/storage/store.js';
import { OutsideTransaction } from '../../src/storage/transactions.js';
import { type OpenedStore, openFreshStore } from '../helpers/databases.js';
import { describeEachDatabase } from '../helpers/fixture.js';
import { freshPostgresSchema, TEST_DATABASE_URL } from '../helpers/server.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

const CLIENT_ID = 'TxLibrary0000001';
const OLD_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$b2xkIGhhc2g';
const clock = { now: () => Date.now() };
let serial = 0;
const unique = (prefix: string): string => `${prefix}-${++serial}-${Math.random().toString(36).slice(2, 8)}`;

/** A user with one live session, one live access token and one code not yet redeemed, for the app. */
async function userWithAccess(store: Store, uin: number) {
  const now = Date.now();
  await store.users.insert({
    uin,
    passwordHash: OLD_HASH,
    userGroup: 'user',
    createdAt: now,
    disabled: false,
    mustChangePassword: false,
  });
  const session = {
    idHash: unique('session'),
    sid: unique('sid'),
    uin,
    createdAt: now,
    expiresAt: now + 3600_000,
    lastSeenAt: now,
    idleExpiresAt: now + 3600_000,
    ip: null,
    userAgent: null,
    shared: false,
    amr: ['pwd'],
  };
  await store.sessions.insert(session);
  const code = (codeHash: string) => ({
    codeHash,
    clientId: CLIENT_ID,
    uin,
    redirectUri: 'https://app.example.edu/callback',
    scope: null,
    nonce: null,
    codeChallenge: null,
    codeChallengeMethod: null,
    authTime: now,
    createdAt: now,
    expiresAt: now + 600_000,
    usedAt: null,
    amr: null,
    sid: null,
  });
  const redeemed = unique('code');
  await store.codes.insert(code(redeemed));
  const tokenHash = unique('token');
  const token = {
    tokenHash,
    clientId: CLIENT_ID,
    uin,
    scope: null,
    codeHash: redeemed,
    familyId: null,
    createdAt: now,
    expiresAt: now + 3600_000,
    revoked: false,
  };
  expect(await store.tokens.redeemCode(redeemed, now, token, undefined)).toBe(true);
  const pending = unique('code');
  await store.codes.insert(code(pending));
  return { session, tokenHash, pendingCode: pending };
}

/** What a security change of the user replaces, as the database holds it now. */
async function accessState(store: Store, uin: number, granted: Awaited<ReturnType<typeof userWithAccess>>) {
  const now = Date.now();
  return {
    passwordHash: (await store.users.find(uin))?.passwordHash,
    sessions: (await store.sessions.listForUser(uin, now)).length,
    tokenActive: (await store.tokens.findActiveOwner(granted.tokenHash, now)) !== undefined,
    codeUsable: (await store.codes.find(granted.pendingCode))?.usedAt === null,
  };
}

const OLD_STATE = { passwordHash: OLD_HASH, sessions: 1, tokenActive: true, codeUsable: true };

async function addApp(store: Store): Promise<void> {
  await store.apps.insert({
    clientId: CLIENT_ID,
    name: 'Library',
    emoji: '📚',
    secretHash: 'a'.repeat(64),
    redirectUris: ['https://app.example.edu/callback'],
    createdAt: Date.now(),
    disabled: false,
    allowRefreshTokens: true,
    allowedGroups: [],
    postLogoutRedirectUris: [],
    backchannelLogoutUri: null,
    backchannelLogoutLast: null,
  });
}

/** Lets every callback already due run (several turns of the event loop), without waiting for any time. */
async function drainTurns(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

describeEachDatabase('store.transaction', (database) => {
  let opened: OpenedStore;
  let store: Store;
  let nextUin = 4_100_000_000;

  beforeEach(async () => {
    opened = await openFreshStore(database);
    store = opened.store;
    await store.migrate();
    await addApp(store);
  });
  afterEach(async () => {
    await opened.dispose();
  });

  it('commits every write of its work together and answers what the work answered', async () => {
    const uin = ++nextUin;
    const granted = await userWithAccess(store, uin);
    const answer = await store.transaction(async (tx) => {
      await tx.users.update(uin, { passwordHash: 'new' });
      await tx.sessions.deleteForUser(uin);
      await tx.codes.voidForUser(uin, Date.now());
      await tx.tokens.revokeAllForUser(uin);
      return 'done';
    });
    expect(answer).toBe('done');
    expect(await accessState(store, uin, granted)).toEqual({
      passwordHash: 'new',
      sessions: 0,
      tokenActive: false,
      codeUsable: false,
    });
  });

  it('rolls every write back when its work throws, and throws the same error', async () => {
    const uin = ++nextUin;
    const granted = await userWithAccess(store, uin);
    const failure = new Error('the work failed');
    await expect(
      store.transaction(async (tx) => {
        await tx.users.update(uin, { passwordHash: 'new' });
        await tx.sessions.deleteForUser(uin);
        await tx.tokens.revokeAllForUser(uin);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await accessState(store, uin, granted)).toEqual(OLD_STATE);
  });

  it('runs the hot-path statements of its repositories (findActiveOwner, redeemCode) inside it', async () => {
    const uin = ++nextUin;
    const granted = await userWithAccess(store, uin);
    const seen = await store
      .transaction(async (tx) => {
        await tx.tokens.revokeAllForUser(uin);
        const inside = await tx.tokens.findActiveOwner(granted.tokenHash, Date.now());
        const redeemed = await tx.tokens.redeemCode(
          granted.pendingCode,
          Date.now(),
          {
            tokenHash: unique('token'),
            clientId: CLIENT_ID,
            uin,
            scope: null,
            codeHash: granted.pendingCode,
            familyId: null,
            createdAt: Date.now(),
            expiresAt: Date.now() + 3600_000,
            revoked: false,
          },
          undefined,
        );
        throw Object.assign(new Error('roll back'), { inside, redeemed });
      })
      .catch((error: { inside: unknown; redeemed: boolean }) => error);
    // Inside, the revocation was visible and the redemption succeeded; the rollback undid both.
    expect(seen.inside).toBeUndefined();
    expect(seen.redeemed).toBe(true);
    expect(await accessState(store, uin, granted)).toEqual(OLD_STATE);
  });

  it('announces the back-channel logouts its sign-outs queued only once it has committed', async () => {
    const uin = ++nextUin;
    await userWithAccess(store, uin);
    let announced = 0;
    const stop = store.logouts.onQueued(() => {
      announced++;
    });
    await store.apps.update(CLIENT_ID, { backchannelLogoutUri: 'https://app.example.edu/logout' });
    const [session] = await store.sessions.listForUser(uin, Date.now());
    await store.logouts.recordIdToken(session!.sid, CLIENT_ID, uin, Date.now());
    await store.transaction(async (tx) => {
      await tx.sessions.deleteForUser(uin);
      expect(announced).toBe(0);
    });
    expect(announced).toBe(1);
    stop();
  });

  it('lets only one of two admins disabling each other at once through: one enabled admin remains', async () => {
    const [a, b] = [++nextUin, ++nextUin];
    for (const uin of [a, b]) {
      await store.users.insert({
        uin,
        passwordHash: OLD_HASH,
        userGroup: 'admin',
        createdAt: Date.now(),
        disabled: false,
        mustChangePassword: false,
      });
    }
    const users = new UserService(store, clock);
    const outcomes = await Promise.all([
      users.changeAsAdmin(a, { disabled: true }, { uin: b, idHash: 'b' }),
      users.changeAsAdmin(b, { disabled: true }, { uin: a, idHash: 'a' }),
    ]);
    // The second is refused either before it writes (the first had committed: last-admin) or after (both
    // passed the first count: last-admin-raced, rolled back); which one depends on timing.
    const [first, second] = outcomes.map((o) => o.outcome).sort();
    expect(first).toBe('changed');
    expect(['last-admin', 'last-admin-raced']).toContain(second);
    expect(await store.users.countAdmins()).toBe(1);
  });

  if (database === 'sqlite') {
    it('refuses the Store itself inside its work, which would otherwise wait for the commit forever', async () => {
      const uin = ++nextUin;
      await userWithAccess(store, uin);
      await expect(store.transaction(() => store.users.find(uin))).rejects.toBeInstanceOf(OutsideTransaction);
      await expect(
        store.transaction(() => store.users.update(uin, { passwordHash: 'x' })),
      ).rejects.toBeInstanceOf(OutsideTransaction);
      await expect(store.transaction(() => store.transaction(async () => 1))).rejects.toBeInstanceOf(
        OutsideTransaction,
      );
      expect((await store.users.find(uin))?.passwordHash).toBe(OLD_HASH);
    });

    it("keeps other requests' hand-written statements out of an open transaction: they wait, and a rollback never undoes them", async () => {
      const uin = ++nextUin;
      const granted = await userWithAccess(store, uin);
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let opened!: () => void;
      const isOpen = new Promise<void>((resolve) => {
        opened = resolve;
      });
      const transaction = store.transaction(async (tx) => {
        await tx.tokens.revokeAllForUser(uin);
        opened();
        await released;
        throw new Error('roll back');
      });
      await isOpen;
      // Another request, meanwhile: the user-information look-up and a code exchange's redemption.
      const settled: string[] = [];
      const read = store.tokens.findActiveOwner(granted.tokenHash, Date.now()).then((owner) => {
        settled.push('read');
        return owner;
      });
      const newToken = unique('token');
      const redemption = store.tokens
        .redeemCode(
          granted.pendingCode,
          Date.now(),
          {
            tokenHash: newToken,
            clientId: CLIENT_ID,
            uin,
            scope: null,
            codeHash: granted.pendingCode,
            familyId: null,
            createdAt: Date.now(),
            expiresAt: Date.now() + 3600_000,
            revoked: false,
          },
          undefined,
        )
        .then((redeemed) => {
          settled.push('redemption');
          return redeemed;
        });
      await drainTurns();
      expect(settled).toEqual([]);
      release();
      await expect(transaction).rejects.toThrow('roll back');
      // The read saw committed data only (the revocation was rolled back), and the redemption was kept.
      expect(await read).toBeDefined();
      expect(await redemption).toBe(true);
      expect(await store.tokens.findActiveOwner(newToken, Date.now())).toBeDefined();
    });
  }
});

/** `store` with `before` run first whenever `sessions.deleteForUser` is called, on the Store or in a transaction. */
function faultBeforeEndingSessions(store: Store, before: () => void): Store {
  const withFault = <R extends Pick<Repositories, 'sessions'>>(repositories: R): R =>
    new Proxy(repositories, {
      get(target, property) {
        if (property !== 'sessions') return Reflect.get(target, property) as unknown;
        const sessions = target.sessions;
        return new Proxy(sessions, {
          get(inner, name) {
            const value = Reflect.get(inner, name) as unknown;
            if (typeof value !== 'function') return value;
            if (name !== 'deleteForUser') return value.bind(inner) as unknown;
            return (...parameters: Parameters<typeof sessions.deleteForUser>) => {
              before();
              return sessions.deleteForUser(...parameters);
            };
          },
        });
      },
    });
  return new Proxy(withFault(store), {
    get(target, property) {
      if (property === 'transaction') {
        return <T>(work: (tx: Repositories) => Promise<T>) => target.transaction((tx) => work(withFault(tx)));
      }
      const value = Reflect.get(target, property) as unknown;
      return typeof value === 'function' ? (value.bind(target) as unknown) : value;
    },
  });
}

describeEachDatabase(
  'security changes when the PostgreSQL connection breaks in the middle',
  () => {
    let proxy: TcpProxy;
    let schema: { url: string; drop: () => Promise<void> };
    let direct: Store;
    let routed: Store;
    let nextUin = 4_200_000_000;

    beforeEach(async () => {
      const target = new URL(TEST_DATABASE_URL);
      proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
      schema = await freshPostgresSchema();
      direct = await openStore({ kind: 'postgres', url: schema.url });
      await direct.migrate();
      await addApp(direct);
      routed = await openStore({ kind: 'postgres', url: proxy.route(schema.url) });
    });
    afterEach(async () => {
      proxy.restore();
      await routed.close();
      await direct.close();
      await proxy.close();
      await schema.drop();
    });

    /** The UserService over the routed store, whose connection is cut just before sessions end. */
    const breakingUsers = () =>
      new UserService(
        faultBeforeEndingSessions(routed, () => proxy.cut()),
        clock,
      );

    it('a password change leaves the old password with its sessions, tokens and codes', async () => {
      const uin = ++nextUin;
      const granted = await userWithAccess(direct, uin);
      await expect(
        breakingUsers().changeOwnPassword(uin, 'a brand new passphrase', 'another-session'),
      ).rejects.toThrow();
      proxy.restore();
      expect(await accessState(direct, uin, granted)).toEqual(OLD_STATE);
    });

    it("an admin's password reset leaves the old password with its sessions, tokens and codes", async () => {
      const uin = ++nextUin;
      const granted = await userWithAccess(direct, uin);
      await expect(
        breakingUsers().changeAsAdmin(
          uin,
          { password: 'a brand new passphrase' },
          { uin: 1, idHash: 'admin' },
        ),
      ).rejects.toThrow();
      proxy.restore();
      expect(await accessState(direct, uin, granted)).toEqual(OLD_STATE);
    });

    it('disabling the user leaves them enabled with their sessions, tokens and codes', async () => {
      const uin = ++nextUin;
      const granted = await userWithAccess(direct, uin);
      await expect(breakingUsers().setDisabled(uin, true)).rejects.toThrow();
      proxy.restore();
      expect((await direct.users.find(uin))?.disabled).toBe(false);
      expect(await accessState(direct, uin, granted)).toEqual(OLD_STATE);
    });

    it('without a fault, the same change ends them all, through the same connection', async () => {
      const uin = ++nextUin;
      const granted = await userWithAccess(direct, uin);
      const users = new UserService(
        faultBeforeEndingSessions(routed, () => undefined),
        clock,
      );
      expect(await users.changeOwnPassword(uin, 'a brand new passphrase', 'another-session')).toBe(true);
      const after = await accessState(direct, uin, granted);
      expect(after.passwordHash).not.toBe(OLD_HASH);
      expect(after).toMatchObject({ sessions: 0, tokenActive: false, codeUsable: false });
    });
  },
  ['postgres'],
);
