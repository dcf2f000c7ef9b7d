/**
 * docs/examples/roster-sync.mjs, the service-account example of docs/interface.md#service-accounts-client-credentials,
 * run as the documented program (`node roster-sync.mjs roster.csv`) against a listening server on both
 * databases: it gets a token with the client_credentials grant and creates or updates each student.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeOnDatabases, freshUin, registerClient } from '../helpers/fixture.js';
import { json } from '../helpers/http.js';

const SCRIPT = join(import.meta.dirname, '..', '..', 'docs', 'examples', 'roster-sync.mjs');

interface Run {
  readonly status: number | null;
  readonly lines: Record<string, unknown>[];
  readonly stderr: string;
}

function runScript(env: Record<string, string>, args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (status) => {
      const lines = stdout
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      resolve({ status, lines, stderr });
    });
  });
}

interface AdminUser {
  uin: number;
  name: string | null;
  email: string | null;
  groups: string[];
  user_group: string;
}

describeOnDatabases('docs/examples/roster-sync.mjs', { user: 'admin' }, (fixture) => {
  const { server, user } = fixture;
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'campus-sso-roster-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function serviceAccount(
    scopes: readonly string[] = ['admin:users:write'],
  ): Promise<Record<string, string>> {
    const app = await registerClient(server, {
      name: 'Roster sync',
      emoji: '🔄',
      redirectUris: [],
      clientCredentials: true,
      allowedScopes: scopes,
    });
    return { CAMPUS_SSO_URL: `${server.baseUrl}/`, CLIENT_ID: app.clientId, CLIENT_SECRET: app.clientSecret };
  }

  function roster(lines: readonly string[]): string {
    const file = join(dir, 'roster.csv');
    writeFileSync(file, ['uin,name,email,groups', ...lines, ''].join('\n'));
    return file;
  }

  async function adminUser(uin: number): Promise<{ status: number; user?: AdminUser }> {
    const answer = await user.browser.call('GET', `/v1/admin/users/${uin}`);
    if (answer.status !== 200) return { status: answer.status };
    const body = await json<{ data: { user: AdminUser } }>(answer);
    return { status: 200, user: body.data.user };
  }

  it('creates the students it does not know and updates those it does, with the app as the audited actor', async () => {
    const env = await serviceAccount();
    const known = freshUin();
    const created = await user.browser.call('POST', '/v1/admin/users', {
      uin: known,
      password: 'an-initial-password-1',
      user_group: 'user',
      name: 'Old Name',
    });
    expect(created.status).toBe(200);
    const fresh = freshUin();
    const passwords = join(dir, 'initial-passwords.csv');
    const run = await runScript({ ...env, INITIAL_PASSWORDS_FILE: passwords }, [
      roster([
        `${known},"Li, Hua",lihua@school.edu,class-2026-3;grade-2026`,
        `${fresh},Wang Fang,,class-2026-3`,
      ]),
    ]);

    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.lines).toEqual([
      { line: 2, uin: known, action: 'updated' },
      { line: 3, uin: fresh, action: 'created' },
      { summary: { created: 1, updated: 1, failed: 0 }, dry_run: false },
    ]);
    expect((await adminUser(known)).user).toMatchObject({
      name: 'Li, Hua',
      email: 'lihua@school.edu',
      groups: ['class-2026-3', 'grade-2026'],
    });
    expect((await adminUser(fresh)).user).toMatchObject({
      name: 'Wang Fang',
      email: null,
      groups: ['class-2026-3'],
      user_group: 'user',
    });
    const [line] = readFileSync(passwords, 'utf8').trim().split('\n');
    const [uin, password] = (line ?? '').split(',');
    expect(Number(uin)).toBe(fresh);
    // The initial password signs in, and must be changed before anything else (a password set for someone).
    const signIn = await json<{ code: number; data: { must_change_password?: boolean } }>(
      await server.fetch('/v1/account/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.baseUrl },
        body: JSON.stringify({ uin: fresh, password }),
      }),
    );
    expect(signIn).toMatchObject({ code: 0, data: { must_change_password: true } });

    const audit = await json<{ data: { events: { action: string; actor_client_id?: string | null }[] } }>(
      await user.browser.call('GET', `/v1/admin/audit?uin=${fresh}`),
    );
    expect(audit.data.events.some((event) => event.actor_client_id === env.CLIENT_ID)).toBe(true);
  });

  it('changes nothing in a dry run', async () => {
    const env = await serviceAccount();
    const fresh = freshUin();
    const run = await runScript(env, [roster([`${fresh},Zhao Lei,,class-2026-4`]), '--dry-run']);
    expect(run.status).toBe(0);
    expect(run.lines.at(-1)).toEqual({ summary: { created: 0, updated: 0, failed: 0 }, dry_run: true });
    expect((await adminUser(fresh)).status).toBe(404);
  });

  it('exits 1 and says which line failed, for a bad uin or an account whose scope cannot write', async () => {
    const bad = await runScript(await serviceAccount(), [roster(['not-a-number,Someone,,'])]);
    expect(bad.status).toBe(1);
    expect(bad.lines[0]).toMatchObject({ line: 2, action: 'failed' });

    const readOnly = await serviceAccount(['admin:users:read']);
    const refused = await runScript(readOnly, [roster([`${freshUin()},Qian Yu,,`])]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/invalid_scope/);
  });
});

describe('docs/examples/roster-sync.mjs without its settings', () => {
  it('prints its usage and exits 2', async () => {
    const run = await runScript({}, []);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^usage: CAMPUS_SSO_URL=/);
  });
});
