/**
 * The benchmark's own verdicts (bench/lib/report.ts), on rows made up here: "peak ≥ 95% of the previous run"
 * is judged over how fast the peers ran in both runs, and a run that leaves rows out or is shortened never
 * becomes the next run's "previous run" (bench/lib/options.ts). No server runs: these are the rules alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RowResult, ServerName } from '../../bench/lib/measure.js';
import { readOptions } from '../../bench/lib/options.js';
import { buildReport, machineSpeed } from '../../bench/lib/report.js';

/** A counted row with this peak; every other figure is beside the point here. */
function row(id: string, server: ServerName, rps: number, counts = true): RowResult {
  return {
    id,
    server,
    workload: 'userinfo',
    endpoint: 'GET /v1/oauth2/get-user-info',
    database: server === 'campus-sso' ? 'sqlite' : 'none',
    size: 'base',
    connections: 64,
    load: {
      connections: 64,
      durationSeconds: 8,
      requests: rps * 8,
      ok2xx: rps * 8,
      non2xx: 0,
      errors: 0,
      rps,
      p50Ms: 1,
      p90Ms: 2,
      p99Ms: 3,
      maxMs: 4,
      statusCounts: { 200: rps * 8 },
      exhausted: false,
    },
    warmupRps: rps,
    peakRssBytes: 100 * 2 ** 20,
    busyBefore: 0,
    counts,
  };
}

const previous = [
  row('userinfo/bare-fastify', 'bare-fastify', 50_000),
  row('userinfo/oidc-provider', 'oidc-provider', 10_000),
  row('userinfo/campus-sso/sqlite/base', 'campus-sso', 40_000),
];

function peakVerdict(rows: RowResult[]): { verdict: string; detail: string } | undefined {
  const report = buildReport(rows, {}, [], 0, { file: 'previous.json', rows: previous });
  return report.verdicts['userinfo/campus-sso/sqlite/base']?.['peak-vs-previous'];
}

describe('peak against the previous run', () => {
  it("takes the machine's speed as the geometric mean of the peers' ratios, leaving campus-sso's rows out", () => {
    const rows = [
      row('userinfo/bare-fastify', 'bare-fastify', 40_000), // 80%
      row('userinfo/oidc-provider', 'oidc-provider', 12_500), // 125%
      row('userinfo/campus-sso/sqlite/base', 'campus-sso', 10_000),
    ];
    expect(machineSpeed(rows, previous)).toBeCloseTo(1, 10);
  });

  it('has no speed without a peer counted in both runs, and then judges the raw ratio', () => {
    const rows = [
      row('userinfo/bare-fastify', 'bare-fastify', 40_000, false),
      row('userinfo/campus-sso/sqlite/base', 'campus-sso', 36_800),
    ];
    expect(machineSpeed(rows, previous)).toBeUndefined();
    expect(peakVerdict(rows)).toEqual({ verdict: 'MISS', detail: '92%' });
  });

  it('passes a row that slowed with the machine, and shows the raw ratio and the peers beside it', () => {
    const rows = [
      row('userinfo/bare-fastify', 'bare-fastify', 45_000), // the machine at 90%
      row('userinfo/oidc-provider', 'oidc-provider', 9_000),
      row('userinfo/campus-sso/sqlite/base', 'campus-sso', 36_800), // 92% raw
    ];
    expect(peakVerdict(rows)).toEqual({ verdict: 'PASS', detail: '102%; raw 92%, peers 90%' });
  });

  it('misses a row that fell more than 5% below what the machine explains', () => {
    const rows = [
      row('userinfo/bare-fastify', 'bare-fastify', 48_500), // the machine at 97%
      row('userinfo/oidc-provider', 'oidc-provider', 9_700),
      row('userinfo/campus-sso/sqlite/base', 'campus-sso', 36_800),
    ];
    expect(peakVerdict(rows)).toEqual({ verdict: 'MISS', detail: '95%; raw 92%, peers 97%' });
  });
});

describe('which runs become the previous run', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of ['BENCH_ONLY', 'BENCH_ROWS', 'BENCH_QUICK']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });
  const partial = (env: Record<string, string>): boolean => {
    for (const name of ['BENCH_ONLY', 'BENCH_ROWS', 'BENCH_QUICK']) delete process.env[name];
    Object.assign(process.env, env);
    return readOptions().partial;
  };

  it('a full run writes latest; one group, some rows or a quick run write partial', () => {
    expect(partial({})).toBe(false);
    expect(partial({ BENCH_ONLY: 'userinfo,token,login,scale-sqlite,postgres' })).toBe(false);
    expect(partial({ BENCH_ONLY: 'login' })).toBe(true);
    expect(partial({ BENCH_ROWS: 'userinfo/bare' })).toBe(true);
    expect(partial({ BENCH_QUICK: '1' })).toBe(true);
  });
});
