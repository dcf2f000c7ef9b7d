/**
 * docs/interface.md#roles on the command line: `user add … --role R:TAG` (repeatable) and
 * `user roles --uin N [--role R:TAG …]`, run as the built program against a temp SQLite database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAppContext } from '../../src/app-context.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/config.js';
import { rolesOf } from '../../src/domain/roles.js';
import { openStore } from '../../src/storage/open-store.js';
import { type CliResult, ensureBuilt, runCli } from './cli-process.js';

const PASSWORD = 'a-long-password';
let databaseUrl: string;

beforeAll(async () => {
  await ensureBuilt();
}, 180_000);

beforeEach(() => {
  const dir = mkdtempSync(join(tmpdir(), 'campus-sso-roles-'));
  databaseUrl = `sqlite:${join(dir, 'cli.sqlite')}`;
  return () => rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[], input = ''): Promise<CliResult> =>
  runCli(args, { DATABASE_URL: databaseUrl }, input);

async function storedRoles(uin: number): Promise<unknown> {
  const config = loadConfig({ DATABASE_URL: databaseUrl });
  const store = await openStore(config.database);
  try {
    return await rolesOf(createAppContext(config, store, systemClock), uin);
  } finally {
    await store.close();
  }
}

async function storedEvents(action: string): Promise<unknown[]> {
  const config = loadConfig({ DATABASE_URL: databaseUrl });
  const store = await openStore(config.database);
  try {
    return await store.audit.list({ actions: [action], limit: 10 });
  } finally {
    await store.close();
  }
}

describe('campus-sso user add --role', () => {
  it('gives the new user the roles, a role repeated covering each group, and prints them', async () => {
    const result = await cli(
      [
        'user',
        'add',
        '--uin',
        '20001',
        '--group',
        'user',
        '--password-stdin',
        '--role',
        'helpdesk:class-2026-3',
        '--role',
        'helpdesk:class-2026-4',
        '--role',
        'auditor:teachers',
      ],
      PASSWORD,
    );
    expect(result.code, result.stderr).toBe(0);
    const expected = [
      { role: 'auditor', groups: ['teachers'] },
      { role: 'helpdesk', groups: ['class-2026-3', 'class-2026-4'] },
    ];
    expect(JSON.parse(result.stdout)).toMatchObject({ uin: 20001, user_group: 'user' });
    expect(await storedRoles(20001)).toEqual(expected);
    // docs/interface.md#audit-trail: the role grant leaves a trace, as `user roles` does.
    expect(await storedEvents('user_created')).toEqual([
      expect.objectContaining({
        actorUin: null,
        target: 'user:20001',
        // In the order given (stored and shown by the roles' names).
        detail: { user_group: 'user', roles: [expected[1], expected[0]], via: 'cli' },
      }),
    ]);
  });

  it('refuses an unknown role or a bad tag with exit 2 and creates nobody', async () => {
    for (const role of ['wizard:class-2026-3', 'helpdesk', 'helpdesk:Not A Tag']) {
      const result = await cli(
        ['user', 'add', '--uin', '20002', '--group', 'user', '--password-stdin', '--role', role],
        PASSWORD,
      );
      expect(result.code, role).toBe(2);
      expect(result.stderr).toMatch(/--role/);
    }
    const added = await cli(
      ['user', 'add', '--uin', '20002', '--group', 'user', '--password-stdin'],
      PASSWORD,
    );
    // Without --role the answer is as it always was.
    expect(added.code, added.stderr).toBe(0);
    expect(Object.keys(JSON.parse(added.stdout) as object).sort()).toEqual([
      'created_at',
      'uin',
      'user_group',
    ]);
  }, 180_000);
});

describe('campus-sso user roles', () => {
  it("replaces an existing user's roles, and removes them when none is given", async () => {
    expect(
      (await cli(['user', 'add', '--uin', '20003', '--group', 'member', '--password-stdin'], PASSWORD)).code,
    ).toBe(0);
    const set = await cli(['user', 'roles', '--uin', '20003', '--role', 'auditor:class-2026-3']);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      uin: 20003,
      roles: [{ role: 'auditor', groups: ['class-2026-3'] }],
    });
    const cleared = await cli(['user', 'roles', '--uin', '20003']);
    expect(JSON.parse(cleared.stdout)).toEqual({ uin: 20003, roles: [] });
    expect(await storedRoles(20003)).toEqual([]);
  });

  it('refuses a uin nobody has', async () => {
    const result = await cli(['user', 'roles', '--uin', '20999', '--role', 'auditor:class-2026-3']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/20999/);
  });
});
