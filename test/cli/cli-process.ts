/**
 * Runs the built `campus-sso` command (`dist/src/cli.js`) as a child process, building it first when it is
 * missing or older than the sources (several test files may ask at once: a lock folder lets one build).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PortTaken, startOnProbedPort } from '../helpers/probed-port.js';
import { waitFor } from '../helpers/wait.js';

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

/** What `serve` prints when its port is taken (src/cli/commands.ts names the error code). */
const ADDRESS_IN_USE = /EADDRINUSE/;

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
    // 'close', not 'exit': by then everything the process wrote has been read.
    this.exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
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

  /**
   * Waits for the `serving` log line (logged once the server listens; LOG_LEVEL info or more verbose) and
   * answers the address it names; fails when the process exits first, or after `timeoutMs`.
   */
  async listening(timeoutMs = 20_000): Promise<URL> {
    const seen = await waitFor(
      () => {
        // A taken port: serve says so and exits 1.
        if (this.child.exitCode !== null || ADDRESS_IN_USE.test(this.stderr))
          return { exited: true } as const;
        const line = this.logLines.find((entry) => entry.msg === 'serving');
        return line && { line };
      },
      { timeout: timeoutMs, interval: 20, what: 'a "serving" line from serve' },
    ).catch((error: unknown) => {
      throw new Error(`serve did not say it serves: ${this.stderr}${this.stdout}`, { cause: error });
    });
    if ('exited' in seen) {
      const code = this.child.exitCode ?? 'none yet';
      throw new Error(`serve stopped before serving (exit code ${code}): ${this.stderr}${this.stdout}`);
    }
    return new URL(String(seen.line.url));
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

/** `serve` started and listening on 127.0.0.1: the process, its port, and the BASE_URL it runs with. */
export interface Serving {
  readonly serve: ServeProcess;
  readonly port: number;
  readonly baseUrl: string;
}

/** The server's own log says it listens: LOG_LEVEL at least info. */
function withServingLine(env: Record<string, string>): Record<string, string> {
  const level = env.LOG_LEVEL === 'debug' || env.LOG_LEVEL === 'trace' ? env.LOG_LEVEL : 'info';
  return { ...env, LOG_LEVEL: level };
}

/**
 * `campus-sso serve` on a port the system picks (PORT=0), read back from its `serving` line: nothing can take
 * the port first. BASE_URL says port 0, so this is for tests that never need the issuer or an Origin to be
 * right (healthz, raw sockets, token calls without a session).
 */
export async function serveOnAnyPort(env: Record<string, string>): Promise<Serving> {
  const serve = ServeProcess.start(withServingLine({ ...env, PORT: '0' }));
  try {
    const port = Number((await serve.listening()).port);
    return { serve, port, baseUrl: `http://127.0.0.1:${port}` };
  } catch (error) {
    await serve.stop();
    throw error;
  }
}

/**
 * `campus-sso serve` whose BASE_URL (the issuer, and the Origin the session API wants) names the port it
 * listens on. BASE_URL must be given before the start, so the port comes from a probe (listen on 0, close),
 * and another process may bind it before serve does: serve then fails with EADDRINUSE and the whole start is
 * tried again on a new probe (../helpers/probed-port.ts). Serving is confirmed by the process's own `serving`
 * line, never by something answering on the port. `host` is BASE_URL's host name (WebAuthn refuses an IP
 * address as relying-party id, so passkey tests use `localhost`); the server listens on 127.0.0.1 either way.
 */
export async function serveWithBaseUrl(
  env: Record<string, string>,
  { host = '127.0.0.1' }: { readonly host?: string } = {},
): Promise<Serving> {
  return startOnProbedPort('campus-sso serve', async (port) => {
    const baseUrl = `http://${host}:${port}`;
    const serve = ServeProcess.start(withServingLine({ ...env, PORT: String(port), BASE_URL: baseUrl }));
    try {
      await serve.listening();
      return { serve, port, baseUrl };
    } catch (error) {
      await serve.stop();
      if (ADDRESS_IN_USE.test(serve.stderr)) return new PortTaken(serve.stderr);
      throw error;
    }
  });
}
