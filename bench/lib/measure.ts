/**
 * One row of the table: warm up; measure the peak under closed-loop load while sampling the server's peak RSS
 * and CPU time; then offer half that peak at a fixed rate (open loop) for the latency.
 */
import { cpuMeter, mainThreadRunQueueMs, processesCpuMeter } from './cpu.js';
import { runLoad, type BodyCheck, type LoadResult, type RequestSource } from './load.js';
import { runOpenLoop, type OpenLoopResult } from './open-loop.js';
import { waitForQuiet } from './quiet.js';
import { PeakRssSampler, type ServerProcess } from './server-process.js';
import type { ProbeReading } from '../probe/loop-probe.js';

export type ServerName = 'campus-sso' | 'oidc-provider' | 'bare-fastify';
export type Workload = 'userinfo' | 'token' | 'legacy-token' | 'login';

export interface RowSpec {
  /** Stable id, used in the JSON and by the target checks, e.g. `userinfo/campus-sso/sqlite/1k`. */
  readonly id: string;
  readonly workload: Workload;
  readonly server: ServerName;
  readonly endpoint: string;
  readonly database: 'sqlite' | 'postgres' | 'in-memory' | 'none';
  /** `base` (the issue's 1,000 live tokens) or `scale` (1,000,000). */
  readonly size?: 'base' | 'scale';
  readonly connections: number;
  /** What a 2xx body must look like (checked on a sample). */
  readonly checkBody?: BodyCheck;
}

/** Server CPU time (user + system) over a run, and per answered request. */
export interface CpuUse {
  readonly seconds: number;
  readonly usPerRequest: number;
}

/** The open-loop run at a fixed share of the row's peak. */
export interface OpenLoopRow extends OpenLoopResult {
  readonly cpu?: CpuUse;
  /** The server's event-loop delay and GC pauses over the run (bench/probe/loop-probe.ts). */
  readonly mainThread?: ProbeReading;
  /**
   * How long the load generator's own thread waited for a core during the run, in ms: an answer that
   * arrived meanwhile was read late, and the wait is in its latency.
   */
  readonly generatorRunQueueMs?: number;
  /** Latency is judged only with every request answered 2xx and the rate actually achieved. */
  readonly judged: boolean;
  readonly whyNotJudged?: string;
}

export interface RowResult extends RowSpec {
  /** Closed loop, `connections` connections: the peak. */
  readonly load: LoadResult;
  /** The server process's CPU time over the measured seconds of `load`. */
  readonly cpu?: CpuUse;
  /** PostgreSQL rows: the database backends' CPU time over the same seconds. */
  readonly databaseCpu?: CpuUse;
  /** The server's event-loop delay and GC pauses over the closed-loop measured seconds. */
  readonly mainThread?: ProbeReading;
  /** Open loop at half (BENCH_OPEN_SHARE) of the row's own peak. */
  readonly openLoop?: OpenLoopRow;
  /** Open loop at the one steady rate every server gets for this workload (`steadyRates`). */
  readonly steady?: OpenLoopRow;
  readonly warmupRps: number;
  readonly peakRssBytes: number;
  /** Share of the CPUs other work kept busy just before the row (0..1): high means a noisy row. */
  readonly busyBefore: number;
  /** Live access tokens in the database when the row started (campus-sso only). */
  readonly liveTokens?: number;
  /** A row counts only with zero non-2xx answers, zero errors and requests left to the end. */
  readonly counts: boolean;
  readonly whyNotCounted?: string;
}

export interface MeasureOptions {
  readonly warmupSeconds: number;
  readonly durationSeconds: number;
  /** 0 = never wait for other work on the machine to calm down. */
  readonly quietWaitSeconds: number;
  /** Share of the measured peak offered in the open-loop run. */
  readonly openLoopShare: number;
  /** Connection pool of the open-loop run. */
  readonly openLoopConnections: number;
  /** A fixed open-loop rate for every row instead of a share of its peak (A/B comparisons of two builds). */
  readonly openLoopRate?: number;
  /** The steady open-loop rate every server gets, by workload (none: no steady run for it). */
  readonly steadyRates: Readonly<Partial<Record<Workload, number>>>;
  readonly log: (line: string) => void;
}

/** The open-loop rate must reach this share of the rate offered for its latency to be judged. */
export const MIN_ACHIEVED = 0.95;

/** Other work above this share of the CPUs makes the bench wait before a row. */
const MAX_OTHER_BUSY = 0.15;

/**
 * `source` is asked once for the warm-up and once for the measured run; for one-time codes it gets the
 * warm-up's rate, so it can mint enough codes for the measured seconds.
 */
export type SourceFactory = (phase: 'warmup' | 'measure', warmupRps: number) => Promise<RequestSource>;

export async function measureRow(
  spec: RowSpec,
  server: ServerProcess,
  source: SourceFactory,
  options: MeasureOptions,
  liveTokens?: () => Promise<number>,
  databasePids?: () => Promise<readonly number[]>,
): Promise<RowResult> {
  const tokensAtStart = liveTokens === undefined ? undefined : await liveTokens();
  const busyBefore =
    options.quietWaitSeconds > 0
      ? await waitForQuiet(MAX_OTHER_BUSY, options.quietWaitSeconds * 1000, options.log)
      : 0;
  const common = {
    baseUrl: server.baseUrl,
    connections: spec.connections,
    ...(spec.checkBody === undefined ? {} : { checkBody: spec.checkBody }),
  };
  const warmup = await runLoad({
    ...common,
    source: await source('warmup', 0),
    durationSeconds: options.warmupSeconds,
  });
  const measuredSource = await source('measure', warmup.rps);
  const sampler = new PeakRssSampler(server.pid);
  const databaseMeter = databasePids === undefined ? undefined : await processesCpuMeter(databasePids);
  await server.probe?.start();
  const meter = cpuMeter(server.pid);
  const load = await runLoad({ ...common, source: measuredSource, durationSeconds: options.durationSeconds });
  const cpu = meter.stop(load.requests);
  const serverReading = await server.probe?.stop();
  const databaseCpu = await databaseMeter?.stop(load.requests);
  const peakRssBytes = sampler.stop();
  const half = Math.max(1, Math.round(load.rps * options.openLoopShare));
  const openLoop =
    load.ok2xx > 0
      ? await measureOpenLoop(spec, server, source, options, options.openLoopRate ?? half)
      : undefined;
  const steadyRate = options.steadyRates[spec.workload];
  const steady =
    load.ok2xx > 0 && steadyRate !== undefined
      ? await measureOpenLoop(spec, server, source, options, steadyRate)
      : undefined;

  const reasons: string[] = [];
  if (load.non2xx > 0) reasons.push(`${load.non2xx} non-2xx (${load.sampleFailure ?? '?'})`);
  if (load.errors > 0) reasons.push(`${load.errors} socket errors/timeouts`);
  if (load.exhausted) reasons.push('ran out of pre-minted codes before the time was up');
  if (load.ok2xx === 0) reasons.push('no successful answer');
  if (load.wrongBody !== undefined) reasons.push(`a 2xx answer with the wrong body (${load.wrongBody})`);
  return {
    ...spec,
    load,
    warmupRps: warmup.rps,
    ...(cpu === undefined ? {} : { cpu }),
    ...(databaseCpu === undefined ? {} : { databaseCpu }),
    ...(serverReading === undefined ? {} : { mainThread: serverReading }),
    ...(openLoop === undefined ? {} : { openLoop }),
    ...(steady === undefined ? {} : { steady }),
    peakRssBytes,
    busyBefore,
    ...(tokensAtStart === undefined ? {} : { liveTokens: tokensAtStart }),
    counts: reasons.length === 0,
    ...(reasons.length === 0 ? {} : { whyNotCounted: reasons.join('; ') }),
  };
}

async function measureOpenLoop(
  spec: RowSpec,
  server: ServerProcess,
  source: SourceFactory,
  options: MeasureOptions,
  rate: number,
): Promise<OpenLoopRow> {
  const openSource = await source('measure', rate);
  await server.probe?.start();
  const meter = cpuMeter(server.pid);
  const generatorWaitBefore = mainThreadRunQueueMs();
  const result = await runOpenLoop({
    baseUrl: server.baseUrl,
    source: openSource,
    rate,
    durationSeconds: options.durationSeconds,
    connections: options.openLoopConnections,
    ...(spec.checkBody === undefined ? {} : { checkBody: spec.checkBody }),
  });
  const cpu = meter.stop(result.requests);
  const generatorWaitAfter = mainThreadRunQueueMs();
  const reading = await server.probe?.stop();
  const reasons: string[] = [];
  if (result.non2xx > 0) reasons.push(`${result.non2xx} non-2xx (${result.sampleFailure ?? '?'})`);
  if (result.errors > 0) reasons.push(`${result.errors} socket errors/unanswered`);
  if (result.exhausted) reasons.push('ran out of pre-minted codes');
  if (result.wrongBody !== undefined) reasons.push(`a 2xx answer with the wrong body (${result.wrongBody})`);
  if (result.achievedRps < MIN_ACHIEVED * rate) {
    reasons.push(`achieved ${result.achievedRps.toFixed(0)} of ${rate} req/s offered`);
  }
  return {
    ...result,
    ...(cpu === undefined ? {} : { cpu }),
    ...(reading === undefined ? {} : { mainThread: reading }),
    ...(generatorWaitBefore === undefined || generatorWaitAfter === undefined
      ? {}
      : { generatorRunQueueMs: generatorWaitAfter - generatorWaitBefore }),
    judged: reasons.length === 0,
    ...(reasons.length === 0 ? {} : { whyNotJudged: reasons.join('; ') }),
  };
}

/**
 * How many one-time codes to mint for a phase: the warm-up assumes a generous ceiling; the run 2.5× the
 * warm-up rate (on a shared machine a 2 s warm-up can run at half the speed of the seconds after it).
 */
export function codesNeeded(phase: 'warmup' | 'measure', warmupRps: number, options: MeasureOptions): number {
  const CEILING_RPS = 20_000;
  if (phase === 'warmup') return Math.ceil(options.warmupSeconds * CEILING_RPS);
  return Math.ceil(Math.max(warmupRps * 2.5, 5_000) * options.durationSeconds) + 5_000;
}

/** `loop p99 1.2 max 8.0 ms, GC 40 × (total 55.1, max 3.2 ms, 0 major)`, or '' without a reading. */
export function probeSummary(reading: ProbeReading | undefined): string {
  if (reading === undefined) return '';
  const d = reading.loopDelay;
  const g = reading.gc;
  const r = reading.runQueue;
  return (
    `loop delay p99 ${d.p99Ms.toFixed(1)} max ${d.maxMs.toFixed(1)} ms, GC ${g.count}× ` +
    `(total ${g.totalMs.toFixed(1)}, max ${g.maxMs.toFixed(1)} ms, ${g.major} major)` +
    (r === undefined ? '' : `, waited for a core ${r.totalMs.toFixed(0)} ms (most ${r.maxMs.toFixed(1)} ms)`)
  );
}

function openSummary(label: string, o: OpenLoopRow | undefined): string {
  if (o === undefined) return '';
  return (
    `\n    ${label} ${o.achievedRps.toFixed(0)}/${o.targetRps} req/s p50 ${o.p50Ms.toFixed(2)} ms p99 ${o.p99Ms.toFixed(2)} ms` +
    ` CPU ${o.cpu?.usPerRequest.toFixed(1) ?? '?'} µs/req; ${probeSummary(o.mainThread)}` +
    (o.judged ? '' : ` (not judged: ${o.whyNotJudged ?? ''})`)
  );
}

export function progress(row: RowResult): string {
  const l = row.load;
  const verdict = row.counts ? 'ok' : `NOT COUNTED: ${row.whyNotCounted ?? ''}`;
  const open =
    `closed loop: ${probeSummary(row.mainThread)}` +
    openSummary('open loop (share of peak)', row.openLoop) +
    openSummary('open loop (steady rate)', row.steady);
  return (
    `  ${row.id.padEnd(38)} ${l.rps.toFixed(0).padStart(7)} req/s  CPU ${row.cpu?.usPerRequest.toFixed(1) ?? '?'}` +
    `${row.databaseCpu === undefined ? '' : ` + database ${row.databaseCpu.usPerRequest.toFixed(1)}`} µs/req  ` +
    `p50 ${l.p50Ms.toFixed(2)} ms  p99 ${l.p99Ms.toFixed(2)} ms  non-2xx ${l.non2xx}  errors ${l.errors}  ` +
    `RSS ${(row.peakRssBytes / 2 ** 20).toFixed(0)} MB  ${verdict}\n    ${open}`
  );
}
