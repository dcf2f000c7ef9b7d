/** One row of the table: warm up, then measure under load while sampling the server's peak RSS. */
import { runLoad, type BodyCheck, type LoadResult, type RequestSource } from './load.js';
import { waitForQuiet } from './quiet.js';
import { PeakRssSampler, type ServerProcess } from './server-process.js';

export type ServerName = 'campus-sso' | 'oidc-provider' | 'bare-fastify';
export type Workload = 'userinfo' | 'token' | 'legacy-token' | 'login';

export interface RowSpec {
  /** Stable id, used in the JSON and by the target checks, e.g. `userinfo/campus-sso/sqlite/1k`. */
  readonly id: string;
  readonly workload: Workload;
  readonly server: ServerName;
  readonly endpoint: string;
  readonly database: 'sqlite' | 'postgres' | 'in-memory' | 'none';
  /** `base` (the 1,000 live tokens) or `scale` (1,000,000). */
  readonly size?: 'base' | 'scale';
  readonly connections: number;
  /** What a 2xx body must look like (checked on a sample). */
  readonly checkBody?: BodyCheck;
}

export interface RowResult extends RowSpec {
  readonly load: LoadResult;
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
  readonly log: (line: string) => void;
}

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
  const load = await runLoad({ ...common, source: measuredSource, durationSeconds: options.durationSeconds });
  const peakRssBytes = sampler.stop();

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
    peakRssBytes,
    busyBefore,
    ...(tokensAtStart === undefined ? {} : { liveTokens: tokensAtStart }),
    counts: reasons.length === 0,
    ...(reasons.length === 0 ? {} : { whyNotCounted: reasons.join('; ') }),
  };
}

/** How many one-time codes to mint for a phase: the warm-up assumes a generous ceiling, the run 1.6× the warm-up rate. */
export function codesNeeded(phase: 'warmup' | 'measure', warmupRps: number, options: MeasureOptions): number {
  const CEILING_RPS = 20_000;
  if (phase === 'warmup') return Math.ceil(options.warmupSeconds * CEILING_RPS);
  return Math.ceil(Math.max(warmupRps, 2_000) * options.durationSeconds * 1.6) + 5_000;
}

export function progress(row: RowResult): string {
  const l = row.load;
  const verdict = row.counts ? 'ok' : `NOT COUNTED: ${row.whyNotCounted ?? ''}`;
  return (
    `  ${row.id.padEnd(38)} ${l.rps.toFixed(0).padStart(7)} req/s  p50 ${l.p50Ms.toFixed(2)} ms  ` +
    `p99 ${l.p99Ms.toFixed(2)} ms  non-2xx ${l.non2xx}  errors ${l.errors}  ` +
    `RSS ${(row.peakRssBytes / 2 ** 20).toFixed(0)} MB  ${verdict}`
  );
}
