/**
 * campus-sso under test: provisioned through its own CLI (`dist/src/cli.js`, as an operator would), then
 * started as `node dist/src/cli.js serve` in its own process.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CampusDatabase } from './campus-db.js';
import { freePort, startServer, type ServerProcess } from './server-process.js';

export const CLI = resolve('dist/src/cli.js');
export const REDIRECT_URI = 'http://127.0.0.1:9/cb';
/** The user whose info every userinfo row answers (the uin of the SPEC's example). */
export const BENCH_UIN = 1010553892;

export interface Client {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface LoginUser {
  readonly uin: number;
  readonly password: string;
}

function serverEnv(database: CampusDatabase, port: number): Record<string, string> {
  return {
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: database.url,
    LOG_LEVEL: 'warn',
    // Instances of one PostgreSQL database share a key-encryption key (docs/interface.md#configuration);
    // this one protects nothing but the bench's throwaway database.
    ...(database.url.startsWith('postgres') && {
      SECRET_KEY: 'campus-sso-bench-key-encryption-key-0123456789',
    }),
  };
}

function runCli(database: CampusDatabase, args: readonly string[], stdin?: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, ...serverEnv(database, 0), PORT: '8080' }, maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`campus-sso ${args.join(' ')} failed: ${stderr || error.message}`));
        else resolvePromise(stdout.trim());
      },
    );
    child.stdin?.end(stdin ?? '');
  });
}

/** The last line of CLI output that parses as JSON (logs may precede it). */
function lastJson<T>(output: string): T {
  const lines = output.split('\n').reverse();
  for (const line of lines) {
    try {
      return JSON.parse(line) as T;
    } catch {
      // a log line
    }
  }
  throw new Error(`no JSON in CLI output: ${output}`);
}

export interface Provisioned {
  readonly client: Client;
  readonly benchUin: number;
  readonly loginUsers: readonly LoginUser[];
}

/** Migrates, then creates the bench user, the login users and one app, all through the CLI. */
export async function provision(database: CampusDatabase, loginUserCount: number): Promise<Provisioned> {
  await runCli(database, ['migrate']);
  await runCli(
    database,
    ['user', 'add', '--uin', String(BENCH_UIN), '--group', 'admin', '--password-stdin'],
    'bench-admin-password',
  );
  const loginUsers: LoginUser[] = [];
  for (let i = 0; i < loginUserCount; i++) {
    const user = { uin: 20001 + i, password: `bench-login-password-${i}` };
    await runCli(
      database,
      ['user', 'add', '--uin', String(user.uin), '--group', 'user', '--password-stdin'],
      user.password,
    );
    loginUsers.push(user);
  }
  const app = lastJson<{ client_id: string; client_secret: string }>(
    await runCli(database, [
      'app',
      'add',
      '--name',
      'Bench',
      '--emoji',
      '🧪',
      '--redirect-uri',
      REDIRECT_URI,
    ]),
  );
  return {
    client: { clientId: app.client_id, clientSecret: app.client_secret },
    benchUin: BENCH_UIN,
    loginUsers,
  };
}

export interface CampusStartOptions {
  /** Write a V8 CPU profile to this directory when the server exits. */
  readonly cpuProfileDir?: string;
}

/**
 * The Node flags the `campus-sso` command runs with: those of its `#!/usr/bin/env -S node …` line, which
 * `npm start` repeats. The bench starts the server exactly so.
 */
export function serverNodeFlags(): string[] {
  const shebang = readFileSync(CLI, 'utf8').split('\n', 1)[0] ?? '';
  const words = shebang.replace(/^#!/, '').trim().split(/\s+/);
  return words.slice(words.indexOf('node') + 1);
}

export async function startCampus(
  database: CampusDatabase,
  name: string,
  options: CampusStartOptions = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const nodeFlags = serverNodeFlags();
  if (options.cpuProfileDir !== undefined) {
    mkdirSync(options.cpuProfileDir, { recursive: true });
    nodeFlags.push(
      '--cpu-prof',
      `--cpu-prof-dir=${options.cpuProfileDir}`,
      `--cpu-prof-name=${name}.cpuprofile`,
    );
  }
  return startServer({
    name,
    command: process.execPath,
    args: [...nodeFlags, CLI, 'serve'],
    env: serverEnv(database, port),
    port,
    readyPath: '/readyz',
  });
}
