/**
 * One server under test = one child process. The bench process only generates load, so the server's
 * memory is its own and its peak RSS can be read from /proc/<pid>/status.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ProbeReading } from '../probe/loop-probe.js';

/** The loop-probe inside a server (bench/probe/loop-probe.ts), reached over the IPC channel. */
export interface LoopProbe {
  /** Resets the server's event-loop-delay histogram and GC tallies. */
  start(): Promise<void>;
  /** What the server's main thread went through since start(); undefined if the probe did not answer. */
  stop(): Promise<ProbeReading | undefined>;
}

export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  readonly port: number;
  readonly baseUrl: string;
  /** Present when the server was started with the probe preloaded. */
  readonly probe?: LoopProbe;
  /** The last lines the child wrote to stdout/stderr, for error messages. */
  output(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly port: number;
  /** Path polled with GET until it answers 2xx. */
  readonly readyPath: string;
  readonly readyTimeoutMs?: number;
  readonly cwd?: string;
  /** The args preload bench/probe/loop-probe.ts: open an IPC channel to it. */
  readonly probe?: boolean;
}

const PROBE_TIMEOUT_MS = 5000;

function probeOf(child: ChildProcess): LoopProbe {
  const ask = <T>(request: string, answer: string, pick: (message: Record<string, unknown>) => T) =>
    new Promise<T | undefined>((resolve) => {
      const timer = setTimeout(() => {
        child.off('message', onMessage);
        resolve(undefined);
      }, PROBE_TIMEOUT_MS);
      function onMessage(message: unknown): void {
        const m = message as Record<string, unknown> | null;
        if (m?.probe !== answer) return;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(pick(m));
      }
      child.on('message', onMessage);
      child.send({ probe: request });
    });
  return {
    async start() {
      await ask('start', 'started', () => true);
    },
    stop: () => ask('stop', 'reading', (m) => m.reading as ProbeReading),
  };
}

/** A TCP port that was free a moment ago (the child binds it right after). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const OUTPUT_LINES = 40;

export async function startServer(options: StartOptions): Promise<ServerProcess> {
  const child: ChildProcess = spawn(options.command, [...options.args], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, ...options.env },
    stdio: options.probe === true ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer): void => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      lines.push(line);
      if (lines.length > OUTPUT_LINES) lines.shift();
    }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.on('exit', () => {
      exited = true;
      resolve();
    });
  });

  const pid = child.pid;
  if (pid === undefined) throw new Error(`${options.name}: could not start ${options.command}`);
  const baseUrl = `http://127.0.0.1:${options.port}`;
  const server: ServerProcess = {
    name: options.name,
    pid,
    port: options.port,
    baseUrl,
    ...(options.probe === true ? { probe: probeOf(child) } : {}),
    output: () => lines.join('\n'),
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const stopped = await Promise.race([exit.then(() => true), sleep(5000).then(() => false)]);
      if (!stopped) {
        child.kill('SIGKILL');
        await exit;
      }
    },
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (exited) throw new Error(`${options.name} exited before it was ready:\n${server.output()}`);
    try {
      const response = await fetch(baseUrl + options.readyPath);
      await response.arrayBuffer();
      if (response.ok) return server;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`${options.name} was not ready within the timeout:\n${server.output()}`);
    }
    await sleep(100);
  }
}

/** Reads a `kB` field of /proc/<pid>/status, in bytes. */
function statusField(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * Peak resident memory of one process during one measured row. Linux keeps the high-water mark (VmHWM) for
 * the process's whole life, so it is reset when the row starts (`echo 5 > /proc/<pid>/clear_refs`, Linux
 * ≥ 4.0); VmRSS is also sampled every 50 ms, in case the reset is not permitted.
 */
export class PeakRssSampler {
  private peak = 0;
  private readonly timer: NodeJS.Timeout;
  readonly hwmReset: boolean;

  constructor(private readonly pid: number) {
    let reset = false;
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
      reset = true;
    } catch {
      reset = false;
    }
    this.hwmReset = reset;
    this.sample();
    this.timer = setInterval(() => this.sample(), 50);
  }

  private sample(): void {
    const rss = statusField(this.pid, 'VmRSS');
    if (rss !== undefined && rss > this.peak) this.peak = rss;
  }

  /** Stops sampling; answers the peak in bytes. */
  stop(): number {
    clearInterval(this.timer);
    this.sample();
    const hwm = this.hwmReset ? statusField(this.pid, 'VmHWM') : undefined;
    return Math.max(this.peak, hwm ?? 0);
  }
}
