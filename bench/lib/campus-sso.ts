/**
 * campus-sso under test: provisioned through its own CLI (`dist/src/cli.js`, as an operator would), then
 * started as `node dist/src/cli.js serve` in its own process.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CampusDatabase } from './campus-db.js';
import { compilePeers, PROBE } from './compile-peers.js';
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

function runCli(
  database: CampusDatabase,
  args: readonly string[],
  stdin?: string,
  cli: string = CLI,
): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(
      process.execPath,
      [cli, ...args],
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

/**
 * Migrates, then creates the bench user, the login users and one app, all through the CLI (`cli`: this
 * checkout's by default; bench/ab.ts passes another build's).
 */
export async function provision(
  database: CampusDatabase,
  loginUserCount: number,
  cli: string = CLI,
): Promise<Provisioned> {
  await runCli(database, ['migrate'], undefined, cli);
  await runCli(
    database,
    ['user', 'add', '--uin', String(BENCH_UIN), '--group', 'admin', '--password-stdin'],
    'bench-admin-password',
    cli,
  );
  const loginUsers: LoginUser[] = [];
  for (let i = 0; i < loginUserCount; i++) {
    const user = { uin: 20001 + i, password: `bench-login-password-${i}` };
    await runCli(
      database,
      ['user', 'add', '--uin', String(user.uin), '--group', 'user', '--password-stdin'],
      user.password,
      cli,
    );
    loginUsers.push(user);
  }
  const app = lastJson<{ client_id: string; client_secret: string }>(
    await runCli(
      database,
      ['app', 'add', '--name', 'Bench', '--emoji', '🧪', '--redirect-uri', REDIRECT_URI],
      undefined,
      cli,
    ),
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
  /** The build to start (its `dist/src/cli.js`); this checkout's by default. */
  readonly cli?: string;
}

/**
 * The Node flags the `campus-sso` command runs with: those of its `#!/usr/bin/env -S node …` line, which
 * `npm start` repeats. The bench starts the server exactly so.
 */
export function serverNodeFlags(cli: string = CLI): string[] {
  const shebang = readFileSync(cli, 'utf8').split('\n', 1)[0] ?? '';
  const words = shebang.replace(/^#!/, '').trim().split(/\s+/);
  return words.slice(words.indexOf('node') + 1);
}

export async function startCampus(
  database: CampusDatabase,
  name: string,
  options: CampusStartOptions = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const cli = options.cli ?? CLI;
  const nodeFlags = serverNodeFlags(cli);
  // The bench's event-loop and GC probe (bench/probe/loop-probe.ts); not part of the server.
  compilePeers();
  nodeFlags.push(`--import=${PROBE}`);
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
    args: [...nodeFlags, cli, 'serve'],
    env: serverEnv(database, port),
    port,
    readyPath: '/readyz',
    probe: true,
  });
}
