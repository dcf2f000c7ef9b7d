/**
 * Open-loop load: requests are scheduled at a fixed rate (one every 1/rate seconds, from the start),
 * whatever the server's answers do. A slow answer cannot slow the sender down and hide itself ("coordinated
 * omission"): when every connection is busy, a request waits in a queue, and that wait is in its latency.
 *
 * Latency runs from the moment the generator releases a request (to a free connection, or to that queue) to
 * the end of its answer. The generator wakes on a 1 ms timer and releases every request that fell due
 * since, so requests leave in small groups (rate / 1,000 per wake-up); the time a request spent due but
 * unreleased is the generator's own lag (the bench process shares the cores), not the server's, and is
 * reported apart as `lagP99Ms`.
 *
 * Why not autocannon's `overallRate`: autocannon 9 gives each connection a per-second quota, reset by a
 * one-second timer (lib/httpClient.js), so every connection sends back-to-back until its quota is used and
 * then idles until the next tick. Its latencies are closed-loop latencies in bursts: against bare Fastify
 * on this machine, `overallRate` 12,000 (a quarter of the peak) gave p99 6.6 ms on 64 connections and 86 ms
 * on 512, worse than the unthrottled closed loop.
 *
 * HTTP/1.1 without pipelining: one request at a time per connection, from a pool opened before the clock
 * starts. The answers of the servers under test carry Content-Length (or are chunked); both are handled.
 */
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { BodyCheck, RequestSource, RequestSpec } from './load.js';

export interface OpenLoopOptions {
  readonly baseUrl: string;
  readonly source: RequestSource;
  /** Requests per second to offer. */
  readonly rate: number;
  readonly durationSeconds: number;
  /** Size of the connection pool; a request with no free connection waits (and the wait counts). */
  readonly connections: number;
  readonly checkBody?: BodyCheck;
  /** Seconds to wait, after the last request is sent, for the answers still outstanding. */
  readonly drainSeconds?: number;
}

export interface OpenLoopResult {
  readonly targetRps: number;
  /** Answers per second, from the first scheduled request to the last answer. */
  readonly achievedRps: number;
  readonly connections: number;
  readonly durationSeconds: number;
  readonly sent: number;
  readonly requests: number;
  readonly ok2xx: number;
  readonly non2xx: number;
  /** Connection errors, and answers still missing when the drain time ran out. */
  readonly errors: number;
  /** Most requests in flight or waiting for a connection at once. */
  readonly maxOutstanding: number;
  /** 99th percentile of the generator's own lag: from when a request fell due to when it was released. */
  readonly lagP99Ms: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly exhausted: boolean;
  readonly sampleFailure?: string;
  readonly wrongBody?: string;
}

interface Pending {
  /** performance.now() at which the request was released. */
  readonly released: number;
  readonly bytes: string;
}

interface Parsed {
  readonly status: number;
  readonly body: string;
  /** Bytes of the buffer the answer used. */
  readonly length: number;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** Decodes a chunked body starting at `start`; undefined while incomplete. */
function chunked(buffer: Buffer, start: number): { body: Buffer; end: number } | undefined {
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at);
    if (lineEnd === -1) return undefined;
    const size = Number.parseInt(buffer.toString('latin1', at, lineEnd), 16);
    if (!Number.isFinite(size)) throw new Error('bad chunk size');
    const dataStart = lineEnd + 2;
    if (size === 0) {
      // No trailers from the servers under test: the last chunk is followed by one empty line.
      if (buffer.length < dataStart + 2) return undefined;
      return { body: Buffer.concat(parts), end: dataStart + 2 };
    }
    if (buffer.length < dataStart + size + 2) return undefined;
    parts.push(buffer.subarray(dataStart, dataStart + size));
    at = dataStart + size + 2;
  }
}

/** One complete HTTP/1.1 answer at the start of `buffer`, or undefined while more bytes are needed. */
export function parseResponse(buffer: Buffer): Parsed | undefined {
  const headEnd = buffer.indexOf(HEAD_END);
  if (headEnd === -1) return undefined;
  const head = buffer.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  const bodyStart = headEnd + 4;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
  if (length !== undefined) {
    const end = bodyStart + Number(length);
    if (buffer.length < end) return undefined;
    return { status, body: buffer.toString('utf8', bodyStart, end), length: end };
  }
  if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) {
    const decoded = chunked(buffer, bodyStart);
    return decoded === undefined
      ? undefined
      : { status, body: decoded.body.toString('utf8'), length: decoded.end };
  }
  // 204, 304, or no body framing at all: nothing after the head.
  return { status, body: '', length: bodyStart };
}

function encode(spec: RequestSpec, host: string): string {
  let head = `${spec.method} ${spec.path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const [name, value] of Object.entries(spec.headers ?? {})) head += `${name}: ${value}\r\n`;
  if (spec.body === undefined) return `${head}\r\n`;
  return `${head}content-length: ${Buffer.byteLength(spec.body)}\r\n\r\n${spec.body}`;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export async function runOpenLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const url = new URL(options.baseUrl);
  const port = Number(url.port || 80);
  const host = url.host;
  const { source, rate } = options;
  const fixed = 'next' in source ? undefined : encode(source, host);

  let latencies = new Float64Array(Math.max(1024, Math.ceil(rate * options.durationSeconds * 1.1)));
  let answered = 0;
  let ok2xx = 0;
  let non2xx = 0;
  let errors = 0;
  let sent = 0;
  let outstanding = 0;
  let maxOutstanding = 0;
  let lastAnswer = 0;
  let exhausted = false;
  let firstFailure: string | undefined;
  let wrongBody: string | undefined;
  let checked = 0;
  let settle: (() => void) | undefined;

  const waiting: Pending[] = [];
  const idle: Connection[] = [];

  const record = (released: number, status: number, body: string): void => {
    const now = performance.now();
    lastAnswer = now;
    if (answered === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[answered++] = now - released;
    if (status >= 200 && status < 300) {
      ok2xx++;
      if (options.checkBody !== undefined && wrongBody === undefined && checked++ % 1000 === 0) {
        const problem = options.checkBody(body);
        if (problem !== undefined) wrongBody = `${problem}: ${body.slice(0, 300)}`;
      }
    } else {
      non2xx++;
      firstFailure ??= `${status} ${body.slice(0, 300)}`;
    }
  };

  const finished = (): void => {
    outstanding--;
    if (outstanding === 0 && settle !== undefined) settle();
  };

  class Connection {
    private socket: Socket;
    private buffer: Buffer = Buffer.alloc(0);
    private current: Pending | undefined;
    closed = false;
    readonly ready: Promise<void>;

    constructor() {
      this.socket = this.open();
      this.ready = new Promise((resolve, reject) => {
        this.socket.once('connect', () => resolve());
        this.socket.once('error', reject);
      });
    }

    private open(): Socket {
      const socket = connect({ host: url.hostname, port, noDelay: true });
      socket.on('data', (chunk: Buffer) => this.onData(chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => this.onClose());
      return socket;
    }

    send(pending: Pending): void {
      this.current = pending;
      this.socket.write(pending.bytes);
    }

    private onData(chunk: Buffer): void {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      const parsed = parseResponse(this.buffer);
      if (parsed === undefined) return;
      this.buffer = this.buffer.subarray(parsed.length);
      const pending = this.current;
      this.current = undefined;
      if (pending === undefined) return;
      record(pending.released, parsed.status, parsed.body);
      finished();
      this.next();
    }

    /** Takes the oldest waiting request, or goes back to the idle pool. */
    next(): void {
      const pending = waiting.shift();
      if (pending === undefined) idle.push(this);
      else this.send(pending);
    }

    private onClose(): void {
      if (this.closed) return;
      // The server closed the connection: its request (if any) failed; reconnect and carry on.
      this.buffer = Buffer.alloc(0);
      if (this.current !== undefined) {
        this.current = undefined;
        errors++;
        finished();
      }
      const index = idle.indexOf(this);
      if (index !== -1) idle.splice(index, 1);
      this.socket = this.open();
      this.socket.once('connect', () => this.next());
    }

    close(): void {
      this.closed = true;
      this.socket.destroy();
    }
  }

  const pool = Array.from({ length: options.connections }, () => new Connection());
  await Promise.all(pool.map((c) => c.ready));
  idle.push(...pool);

  const dispatch = (pending: Pending): void => {
    outstanding++;
    if (outstanding > maxOutstanding) maxOutstanding = outstanding;
    const connection = idle.pop();
    if (connection === undefined) waiting.push(pending);
    else connection.send(pending);
  };

  const interval = 1000 / rate;
  const start = performance.now();
  const total = Math.round(rate * options.durationSeconds);
  const lags = new Float64Array(total);
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      const due = Math.min(total, Math.floor((now - start) / interval) + 1);
      while (sent < due) {
        const spec =
          fixed === undefined ? (source as { next: () => RequestSpec | undefined }).next() : undefined;
        if (fixed === undefined && spec === undefined) {
          exhausted = true;
          break;
        }
        lags[sent] = now - (start + sent * interval);
        dispatch({ released: now, bytes: fixed ?? encode(spec as RequestSpec, host) });
        sent++;
      }
      if (sent >= total || exhausted) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });

  const drained = new Promise<void>((resolve) => {
    if (outstanding === 0) resolve();
    else settle = resolve;
  });
  const drainMs = (options.drainSeconds ?? 10) * 1000;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([drained, new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs)))]);
  clearTimeout(timer);
  errors += outstanding;
  for (const connection of pool) connection.close();

  const sorted = latencies.subarray(0, answered).sort();
  const elapsedSeconds = answered === 0 ? options.durationSeconds : (lastAnswer - start) / 1000;
  return {
    targetRps: rate,
    achievedRps: answered / Math.max(elapsedSeconds, options.durationSeconds),
    connections: options.connections,
    durationSeconds: options.durationSeconds,
    sent,
    requests: answered,
    ok2xx,
    non2xx,
    errors,
    maxOutstanding,
    lagP99Ms: percentile(lags.subarray(0, sent).sort(), 99),
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length === 0 ? Number.NaN : (sorted[sorted.length - 1] ?? Number.NaN),
    exhausted,
    ...(firstFailure === undefined ? {} : { sampleFailure: firstFailure }),
    ...(wrongBody === undefined ? {} : { wrongBody }),
  };
}
