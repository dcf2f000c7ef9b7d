/**
 * Bench settings, read once from the environment (the bench is a dev tool, not the server, so it may read
 * `process.env` itself). Every duration is in seconds.
 *
 *   BENCH_DURATION     measured seconds per row                      (default 8, quick 2)
 *   BENCH_WARMUP       warm-up seconds before each row (discarded)   (default 2, quick 1)
 *   BENCH_CONNECTIONS  concurrent connections                        (default 64)
 *   BENCH_LOGIN_CONNECTIONS  connections for the password-login row  (default 8)
 *   BENCH_OPEN_SHARE   share of each row's peak offered at a fixed rate for the latency (default 0.5)
 *   BENCH_OPEN_CONNECTIONS   connection pool of that open-loop run  (default 256)
 *   BENCH_OPEN_RATE    a fixed open-loop rate (req/s) for every row instead of the share: to compare the CPU
 *                      per request of two builds at the same load on a busy machine   (default unset)
 *   BENCH_STEADY_USERINFO  the steady open-loop rate every server gets on userinfo (req/s, default 2500)
 *   BENCH_STEADY_EXCHANGE  the same for the code exchanges                         (req/s, default 1000)
 *   BENCH_SCALE_TOKENS live access tokens in the "large" scale rows  (default 1000000, quick 100000)
 *   BENCH_POSTGRES_URL server URL without a database name            (default postgres://postgres@127.0.0.1:5432)
 *   BENCH_ONLY         comma-separated groups to run: userinfo,token,login,scale-sqlite,postgres (default all)
 *   BENCH_ROWS         comma-separated substrings of row ids (e.g. `userinfo/bare,userinfo/campus-sso/sqlite/base`):
 *                      only the rows whose id contains one run, inside the groups of BENCH_ONLY (default all);
 *                      a measurement tool for one change. Whenever BENCH_ROWS or BENCH_ONLY leaves rows out, or
 *                      BENCH_QUICK is set, the report goes to bench/results/partial.{md,json} (git-ignored), and
 *                      latest.{md,json} stay the last full run (the next full run's "previous run")
 *   BENCH_CPU_PROF     1 = start campus-sso with --cpu-prof; profiles go to dist/bench-profiles/
 *   BENCH_QUIET_WAIT   seconds to wait, before each row, for other work on the machine to calm down
 *                      (CPUs ≤ 15% busy)                             (default 60, quick 0)
 *   BENCH_PG_ASYNC_COMMIT 1 = diagnosis only: the bench database gets synchronous_commit=off (flagged in the notes)
 *   BENCH_QUICK        1 = short smoke run with the quick defaults above
 */

export const GROUPS = ['userinfo', 'token', 'login', 'scale-sqlite', 'postgres'] as const;
export type Group = (typeof GROUPS)[number];

export interface BenchOptions {
  readonly quick: boolean;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly loginConnections: number;
  /** Share of the row's closed-loop peak offered in the open-loop latency run. */
  readonly openLoopShare: number;
  readonly openLoopConnections: number;
  /** BENCH_OPEN_RATE: the open-loop rate of every row, in req/s, instead of a share of its peak. */
  readonly openLoopRate?: number;
  /** The one steady open-loop rate of every server, per workload (the 2,500 and 1,000 req/s). */
  readonly steadyRates: {
    readonly userinfo: number;
    readonly token: number;
    readonly 'legacy-token': number;
  };
  /** Live tokens in the baseline rows (the "1,000"). */
  readonly baseTokens: number;
  /** Live tokens in the scale rows (the "1,000,000"). */
  readonly scaleTokens: number;
  readonly postgresUrl: string;
  readonly groups: ReadonlySet<Group>;
  /** BENCH_ROWS: whether the row with this id runs. */
  readonly wantRow: (id: string) => boolean;
  /** Rows are left out (BENCH_ROWS, BENCH_ONLY) or shortened (BENCH_QUICK): the report is not the latest run. */
  readonly partial: boolean;
  readonly cpuProfile: boolean;
  readonly quietWaitSeconds: number;
  readonly postgresAsyncCommit: boolean;
}

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

function readGroups(): ReadonlySet<Group> {
  const raw = process.env.BENCH_ONLY;
  if (raw === undefined || raw.trim() === '') return new Set(GROUPS);
  const groups = new Set<Group>();
  for (const part of raw.split(',').map((s) => s.trim())) {
    if (!(GROUPS as readonly string[]).includes(part)) {
      throw new Error(`BENCH_ONLY: unknown group "${part}" (known: ${GROUPS.join(', ')})`);
    }
    groups.add(part as Group);
  }
  return groups;
}

function readRowFilter(): (id: string) => boolean {
  const parts = (process.env.BENCH_ROWS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return parts.length === 0 ? () => true : (id) => parts.some((part) => id.includes(part));
}

export function readOptions(): BenchOptions {
  const quick = process.env.BENCH_QUICK === '1';
  const groups = readGroups();
  const rowsLeftOut = (process.env.BENCH_ROWS ?? '').trim() !== '' || groups.size < GROUPS.length;
  return {
    quick,
    durationSeconds: positiveNumber('BENCH_DURATION', quick ? 2 : 8),
    warmupSeconds: positiveNumber('BENCH_WARMUP', quick ? 1 : 2),
    connections: Math.round(positiveNumber('BENCH_CONNECTIONS', 64)),
    loginConnections: Math.round(positiveNumber('BENCH_LOGIN_CONNECTIONS', 8)),
    openLoopShare: Math.min(1, positiveNumber('BENCH_OPEN_SHARE', 0.5)),
    openLoopConnections: Math.round(positiveNumber('BENCH_OPEN_CONNECTIONS', 256)),
    ...(process.env.BENCH_OPEN_RATE
      ? { openLoopRate: Math.round(positiveNumber('BENCH_OPEN_RATE', 1)) }
      : {}),
    steadyRates: {
      userinfo: Math.round(positiveNumber('BENCH_STEADY_USERINFO', 2500)),
      token: Math.round(positiveNumber('BENCH_STEADY_EXCHANGE', 1000)),
      'legacy-token': Math.round(positiveNumber('BENCH_STEADY_EXCHANGE', 1000)),
    },
    baseTokens: 1000,
    scaleTokens: Math.round(positiveNumber('BENCH_SCALE_TOKENS', quick ? 100_000 : 1_000_000)),
    postgresUrl: (process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432').replace(/\/+$/, ''),
    groups,
    wantRow: readRowFilter(),
    partial: rowsLeftOut || quick,
    cpuProfile: process.env.BENCH_CPU_PROF === '1',
    postgresAsyncCommit: process.env.BENCH_PG_ASYNC_COMMIT === '1',
    quietWaitSeconds:
      process.env.BENCH_QUIET_WAIT === '0' ? 0 : positiveNumber('BENCH_QUIET_WAIT', quick ? 0 : 60),
  };
}
