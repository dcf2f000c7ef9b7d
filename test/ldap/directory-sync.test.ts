/**
 * `campus-sso ldap sync [--apply]` and LDAP_SYNC_INTERVAL (docs/operations.md#what-the-sync-does), run as the
 * built command against a real OpenLDAP (test/helpers/slapd.ts), one directory per database: a dry run
 * reports and changes nothing; --apply creates, updates (a renamed person, new groups) and disables leavers,
 * never deletes and never touches local users; a sync that cannot read the whole directory changes nothing
 * and exits non-zero; only one runs at a time on PostgreSQL. The directory answers at most 3 entries per
 * search and holds 5 people here, so only a paged search reads it whole. On SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleDirectorySync } from '../../src/domain/directory-sync.js';
import type { Directory } from '../../src/domain/directory.js';
import { type CliResult, ensureBuilt, runCli } from '../cli/cli-process.js';
import { describeEachDatabase, PASSWORD } from '../helpers/fixture.js';
import { Browser } from '../helpers/http.js';
import { TEST_SECRET_KEY, type TestServer, startTestServer } from '../helpers/server.js';
import { GROUPS, PEOPLE, type TestDirectory, startTestDirectory, waitFor } from '../helpers/slapd.js';

interface ChangeLine {
  action: 'create' | 'update' | 'disable';
  uin: number;
}

interface Summary {
  create: number;
  update: number;
  disable: number;
  unchanged: number;
  skipped: number;
  applied: boolean;
}

/** The JSON lines a sync printed: its changes and its summary (the last line). */
function parsed(result: CliResult): { changes: ChangeLine[]; summary: Summary } {
  const lines = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const summary = lines.pop() as unknown as Summary;
  return { changes: lines as unknown as ChangeLine[], summary };
}

beforeAll(async () => {
  await ensureBuilt();
}, 300_000);

describeEachDatabase('campus-sso ldap sync', (database) => {
  let directory: TestDirectory;
  let server: TestServer;
  let env: Record<string, string>;
  const sync = (...args: string[]): Promise<CliResult> => runCli(['ldap', 'sync', ...args], env);

  // People of the directory (uins unique to this file), and a local user.
  const ADA = 4_100_000_001;
  const GRACE = 4_100_000_002;
  const ALAN = 4_100_000_003;
  const LOCAL_TWIN = 4_100_000_004; // in the directory, but a local user here
  const LOCAL_ONLY = 4_100_000_005; // a local user the directory never heard of

  beforeAll(async () => {
    directory = await startTestDirectory();
    await directory.addPerson({
      uin: ADA,
      cn: 'Ada Lovelace',
      password: 'ada pass 1',
      mail: 'ada@school.test',
    });
    await directory.addPerson({ uin: GRACE, cn: 'Grace Murray', password: 'grace pass 1' });
    await directory.addPerson({ uin: ALAN, cn: 'Alan Turing', password: 'alan pass 1' });
    await directory.addPerson({ uin: LOCAL_TWIN, cn: 'Twin', password: 'twin pass 1' });
    await directory.addGroup('Teachers', [ADA, GRACE]);
    await directory.addGroup('Class 2026 3', [ALAN]);
    await directory.addGroup('Überflieger', [ALAN]);
    // Not a uin: reported, left alone.
    await directory.addEntry(`uid=not-a-number,${PEOPLE}`, {
      objectClass: 'inetOrgPerson',
      uid: 'not-a-number',
      cn: 'Nobody',
      sn: 'Nobody',
    });
    server = await startTestServer({ transport: 'inject', database, env: directory.env() });
    await server.ctx.users.create(LOCAL_TWIN, PASSWORD, 'member');
    await server.ctx.users.create(LOCAL_ONLY, PASSWORD, 'member');
    env = {
      DATABASE_URL: server.databaseUrl,
      ...(database === 'postgres' && { SECRET_KEY: TEST_SECRET_KEY }),
      ...directory.env(),
    };
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await directory?.close();
  });

  it('a dry run prints one line per change and a summary, and changes nothing', async () => {
    const result = await sync();
    expect(result.code).toBe(0);
    const { changes, summary } = parsed(result);
    expect(changes).toEqual([
      { action: 'create', uin: ADA },
      { action: 'create', uin: GRACE },
      { action: 'create', uin: ALAN },
    ]);
    expect(summary).toEqual({ create: 3, update: 0, disable: 0, unchanged: 0, skipped: 2, applied: false });
    // What was left alone, and why, on standard error: an entry without a uin, the local twin, and a group
    // whose name is not a tag.
    const warnings = result.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ dn: `uid=not-a-number,${PEOPLE}` }),
        expect.objectContaining({ uin: LOCAL_TWIN }),
        expect.objectContaining({ uin: ALAN, skipped_groups: [`cn=Überflieger,${GROUPS}`] }),
      ]),
    );
    for (const uin of [ADA, GRACE, ALAN]) expect(await server.ctx.store.users.find(uin)).toBeUndefined();
  });

  it('--apply creates the directory users, never the local twin, and audits ldap_sync', async () => {
    const result = await sync('--apply');
    expect(result.code).toBe(0);
    expect(parsed(result).summary).toMatchObject({ create: 3, applied: true });
    expect(await server.ctx.store.users.find(ADA)).toMatchObject({
      source: 'ldap',
      userGroup: 'user',
      name: 'Ada Lovelace',
      email: 'ada@school.test',
      groups: ['teachers'],
      disabled: false,
    });
    expect(await server.ctx.store.users.find(ALAN)).toMatchObject({ groups: ['class-2026-3'] });
    expect(await server.ctx.store.users.find(LOCAL_TWIN)).toMatchObject({ source: 'local', name: null });
    const events = await server.ctx.store.audit.list({ actions: ['ldap_sync'], limit: 10 });
    expect(events[0]).toMatchObject({ action: 'ldap_sync', outcome: 'success' });

    // A second run finds nothing to do.
    const again = await sync('--apply');
    expect(parsed(again)).toEqual({
      changes: [],
      summary: { create: 0, update: 0, disable: 0, unchanged: 3, skipped: 2, applied: true },
    });
  });

  it('updates a renamed person and changed groups, and disables a removed person without deleting them', async () => {
    // Alan signs in, so that his session can be seen to end when he leaves.
    const alan = new Browser(server);
    expect((await alan.login(ALAN, 'alan pass 1')).status).toBe(200);

    await directory.modifyPerson(GRACE, 'cn', 'Grace Hopper');
    await directory.addMember('Class 2026 3', GRACE);
    await directory.removePerson(ALAN);

    const dry = await sync();
    expect(dry.code).toBe(0);
    expect(parsed(dry)).toEqual({
      changes: [
        { action: 'update', uin: GRACE },
        { action: 'disable', uin: ALAN },
      ],
      summary: { create: 0, update: 1, disable: 1, unchanged: 1, skipped: 2, applied: false },
    });
    expect(await server.ctx.store.users.find(GRACE)).toMatchObject({ name: 'Grace Murray' });

    const applied = await sync('--apply');
    expect(applied.code).toBe(0);
    expect(await server.ctx.store.users.find(GRACE)).toMatchObject({
      name: 'Grace Hopper',
      groups: ['class-2026-3', 'teachers'],
    });
    expect(await server.ctx.store.users.find(ALAN)).toMatchObject({ disabled: true, source: 'ldap' });
    expect((await alan.call('GET', '/v1/account/me')).status).toBe(401);
    // Local users, whether the directory knows their uin or not, are never touched.
    expect(await server.ctx.store.users.find(LOCAL_TWIN)).toMatchObject({ disabled: false, source: 'local' });
    expect(await server.ctx.store.users.find(LOCAL_ONLY)).toMatchObject({ disabled: false, source: 'local' });
  });

  it('changes nothing and exits non-zero when the directory cannot be read', async () => {
    await directory.removePerson(ADA);
    await directory.stop();
    try {
      const result = await sync('--apply');
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/could not be read whole.*nothing was changed/);
      expect(await server.ctx.store.users.find(ADA)).toMatchObject({ disabled: false });
      const events = await server.ctx.store.audit.list({ actions: ['ldap_sync'], limit: 1 });
      expect(events[0]).toMatchObject({ outcome: 'failure' });
    } finally {
      await directory.start();
    }
    await directory.addPerson({
      uin: ADA,
      cn: 'Ada Lovelace',
      password: 'ada pass 1',
      mail: 'ada@school.test',
    });
  });

  it('changes nothing and exits non-zero when part of the base is referred to another server', async () => {
    // RFC 4511 §4.5.3: the people under ou=annex live on another server, which the sync does not follow; had
    // it ignored the referral, everyone kept here from there would be disabled.
    const annex = `ou=annex,${PEOPLE}`;
    await directory.addEntry(annex, {
      objectClass: ['referral', 'extensibleObject'],
      ou: 'annex',
      ref: `ldap://annex.school.test/${annex}`,
    });
    await directory.removePerson(ADA);
    try {
      const result = await sync('--apply');
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        /held by another server.*ldap:\/\/annex\.school\.test.*nothing was changed/,
      );
      expect(await server.ctx.store.users.find(ADA)).toMatchObject({ disabled: false });
    } finally {
      await directory.removeEntry(annex);
      await directory.addPerson({
        uin: ADA,
        cn: 'Ada Lovelace',
        password: 'ada pass 1',
        mail: 'ada@school.test',
      });
    }
  });

  it("reads past a referral to Active Directory's DNS or configuration partitions, which hold no people", async () => {
    const zones = `dc=DomainDnsZones,${PEOPLE}`;
    await directory.addEntry(zones, {
      objectClass: ['referral', 'extensibleObject'],
      dc: 'DomainDnsZones',
      ref: `ldap://DomainDnsZones.school.test/DC=DomainDnsZones,DC=school,DC=test`,
    });
    try {
      const result = await sync();
      expect(result.code).toBe(0);
      expect(result.stderr).not.toMatch(/another server/);
      expect(parsed(result).summary).toMatchObject({ disable: 0, applied: false });
    } finally {
      await directory.removeEntry(zones);
    }
  });

  it('refuses a directory that answers nobody while directory users are kept (a wrong base), changing nothing', async () => {
    const result = await runCli(['ldap', 'sync', '--apply'], {
      ...env,
      LDAP_USER_BASE: `ou=services,${PEOPLE.split(',').slice(1).join(',')}`,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/answered nobody/);
    expect(await server.ctx.store.users.find(ADA)).toMatchObject({ disabled: false });
  });

  if (database === 'postgres') {
    it('runs one at a time: a sync while another holds the lock exits non-zero and changes nothing', async () => {
      await directory.modifyPerson(ADA, 'cn', 'Ada King');
      let release = (): void => undefined;
      const held = server.ctx.store.exclusive(
        'ldap-sync',
        () => new Promise<void>((resolve) => (release = resolve)),
      );
      try {
        const result = await sync('--apply');
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(/another ldap sync is running/);
        expect(await server.ctx.store.users.find(ADA)).toMatchObject({ name: 'Ada Lovelace' });
      } finally {
        release();
        await held;
      }
      expect((await sync('--apply')).code).toBe(0);
      expect(await server.ctx.store.users.find(ADA)).toMatchObject({ name: 'Ada King' });
    });
  }

  describe('LDAP_SYNC_INTERVAL', () => {
    it('applies the sync on a schedule', async () => {
      const newcomer = 4_100_000_006;
      await directory.addPerson({ uin: newcomer, cn: 'Katherine Johnson', password: 'kj pass 1' });
      const ctx = server.ctx;
      const scheduled = scheduleDirectorySync(
        { ...ctx, directory: ctx.passwords.directory as Directory },
        50,
        { info: () => undefined, warn: () => undefined },
      );
      try {
        await waitFor(
          async () => (await ctx.store.users.find(newcomer)) !== undefined,
          10_000,
          'the scheduled sync',
        );
      } finally {
        await scheduled.stop();
      }
      expect(await ctx.store.users.find(newcomer)).toMatchObject({
        source: 'ldap',
        name: 'Katherine Johnson',
      });
    });
  });
});
