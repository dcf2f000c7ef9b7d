/**
 * Runs the built `campus-sso` command (`dist/src/cli.js`) as a child process, building it first when it is
 * missing or older than the sources (several test files may ask at once: a lock folder lets one build).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = join(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'src', 'cli.js');
const LOCK = join(ROOT, 'dist', '.test-build.lock');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function stale(): boolean {
  if (!existsSync(CLI)) return true;
  const built = statSync(CLI).mtimeMs;
  return newest(join(ROOT, 'src')) > built || statSync(join(ROOT, 'package.json')).mtimeMs > built;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Builds the server (`npm run build:server`) unless dist/src/cli.js is newer than every source. */
export async function ensureBuilt(): Promise<void> {
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  for (;;) {
    if (!stale()) return;
    try {
      mkdirSync(LOCK);
    } catch {
      // Another test file is building; a lock older than 3 minutes is left over from a killed run.
      const lock = statSync(LOCK, { throwIfNoEntry: false });
      if (lock && Date.now() - lock.mtimeMs > 180_000) rmSync(LOCK, { force: true, recursive: true });
      await sleep(500);
      continue;
    }
    try {
      const started = Date.now();
      try {
        await promisify(execFile)('npm', ['run', 'build:server'], { cwd: ROOT });
      } catch (error) {
        // tsc still emits when another module has a type error; only a missing output is fatal here.
        if (!existsSync(CLI) || statSync(CLI).mtimeMs < started) throw error;
        console.warn(
          `campus-sso tests: npm run build:server reported errors:\n${(error as { stdout?: string }).stdout ?? ''}`,
        );
      }
      return;
    } finally {
      rmSync(LOCK, { force: true, recursive: true });
    }
  }
}

/** A child environment with nothing from the developer's shell but PATH and HOME, plus `env`. */
export function cliEnv(env: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    LOG_LEVEL: 'silent',
    ...env,
  };
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `campus-sso ...args` to its end, with `input` on standard input. */
export function runCli(args: readonly string[], env: Record<string, string>, input = ''): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: cliEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

/** A running `campus-sso serve`: its output so far, and a way to wait for a line or for its exit. */
export class ServeProcess {
  stdout = '';
  stderr = '';
  private readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  static start(env: Record<string, string>): ServeProcess {
    // The tests call 127.0.0.1, so that is the origin state-changing calls must come from (BASE_URL).
    const withBase =
      env.PORT !== undefined && env.BASE_URL === undefined
        ? { ...env, BASE_URL: `http://127.0.0.1:${env.PORT}` }
        : env;
    return new ServeProcess(spawn(process.execPath, [CLI, 'serve'], { cwd: ROOT, env: cliEnv(withBase) }));
  }

  /** The JSON log lines printed so far. */
  get logLines(): Record<string, unknown>[] {
    return this.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** Waits until `url` answers 200 (the server is listening), or fails after `timeoutMs`. */
  async waitUntilServing(url: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.child.exitCode !== null) {
        throw new Error(`serve exited with ${this.child.exitCode}: ${this.stderr}${this.stdout}`);
      }
      try {
        if ((await fetch(url)).status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`serve did not answer ${url}: ${this.stderr}${this.stdout}`);
      await sleep(100);
    }
  }

  /** Sends SIGTERM and answers the exit status. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A TCP port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
