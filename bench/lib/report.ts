/**
 * The verdicts and the Markdown table. Every ratio is against a row measured in the same run; a row that
 * does not count (any non-2xx, any error) gets no verdict, and nothing is compared against it.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg, totalmem } from 'node:os';
import type { OpenLoopRow, RowResult } from './measure.js';

export type Verdict = 'PASS' | 'MISS' | '—';

export interface TargetCheck {
  readonly verdict: Verdict;
  /** The measured quantity, e.g. `72%`. */
  readonly detail: string;
}

export interface Target {
  readonly id: string;
  readonly title: string;
  readonly check: (
    row: RowResult,
    rows: readonly RowResult[],
    previous: PreviousRun,
  ) => TargetCheck | undefined;
}

/** The rows of the run before this one (bench/results/latest.json as it was when this run began). */
export interface PreviousRun {
  readonly file: string;
  readonly rows: readonly RowResult[];
}

/** Reads the previous run's rows, or none when the file is missing or unreadable. */
export function readPrevious(file: string): PreviousRun {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8')) as { rows?: RowResult[] };
    return { file, rows: Array.isArray(report.rows) ? report.rows.filter((r) => r.counts) : [] };
  } catch {
    return { file, rows: [] };
  }
}

export interface Machine {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly node: string;
  readonly date: string;
  /** 1-minute load average when the run began and when it ended: other work on the machine skews results. */
  readonly loadAverage: { readonly before: number; readonly after: number };
}

const MB = 2 ** 20;

function find(rows: readonly RowResult[], predicate: (row: RowResult) => boolean): RowResult | undefined {
  return rows.find(predicate);
}

function pct(ratio: number): string {
  return `${(ratio * 100).toFixed(0)}%`;
}

/** CPU µs per answered request: the server process, plus the database backends on PostgreSQL. */
export function cpuPerRequest(row: RowResult): number | undefined {
  if (row.cpu === undefined) return undefined;
  return row.cpu.usPerRequest + (row.databaseCpu?.usPerRequest ?? 0);
}

/** How a row compares with a reference, > 1 = better: req/s over req/s, or CPU/request the other way up. */
export type Metric = (row: RowResult, reference: RowResult) => number | undefined;

export const byRps: Metric = (row, reference) => row.load.rps / reference.load.rps;

export const byCpu: Metric = (row, reference) => {
  const mine = cpuPerRequest(row);
  const theirs = cpuPerRequest(reference);
  return mine === undefined || theirs === undefined || mine === 0 ? undefined : theirs / mine;
};

/** A comparison needs both rows to count. */
function compare(
  row: RowResult,
  reference: RowResult | undefined,
  metric: Metric,
  pass: (ratio: number) => boolean,
  show: (ratio: number) => string,
): TargetCheck | undefined {
  if (reference === undefined) return undefined;
  if (!row.counts) return { verdict: '—', detail: 'row not counted' };
  if (!reference.counts) return { verdict: '—', detail: `${reference.id} not counted` };
  const ratio = metric(row, reference);
  if (ratio === undefined) return { verdict: '—', detail: 'no CPU figure' };
  return { verdict: pass(ratio) ? 'PASS' : 'MISS', detail: show(ratio) };
}

const times = (r: number): string => `${r.toFixed(2)}×`;

const isCampus = (row: RowResult): boolean => row.server === 'campus-sso';
const isExchange = (row: RowResult): boolean => row.workload === 'token' || row.workload === 'legacy-token';

const isUserinfoOnSqlite = (row: RowResult): boolean =>
  isCampus(row) && row.workload === 'userinfo' && row.database === 'sqlite';
const isExchangeOnSqlite = (row: RowResult): boolean =>
  isCampus(row) && isExchange(row) && row.database === 'sqlite';
const bareFastify = (rows: readonly RowResult[]): RowResult | undefined =>
  find(rows, (r) => r.server === 'bare-fastify');
const peerExchange = (rows: readonly RowResult[]): RowResult | undefined =>
  find(rows, (r) => r.server === 'oidc-provider' && r.workload === 'token');

/** The open-loop latency limit, at the share of the peak in `BENCH_OPEN_SHARE` (0.5 by default). */
const OPEN_LOOP_P99_MS = 5;
/** The p99 limits at the one steady rate every server gets (issue 29): userinfo, then every exchange. */
const STEADY_P99_MS = { userinfo: 5, exchange: 10 } as const;
/** A row's peak may fall this far below the previous run's before it is a MISS. */
const PEAK_REGRESSION = 0.05;

/**
 * How fast the machine ran in this run against the previous one: the geometric mean of the peers' peak ratios
 * (bare Fastify and oidc-provider, whose code is the same in both runs), or undefined when no peer row counted
 * in both. A row's peak is compared with the previous run's over this: on the shared VM the same build's
 * req/s moved by up to 2× between sessions, which a raw comparison would call a regression or a gain.
 */
export function machineSpeed(
  rows: readonly RowResult[],
  previousRows: readonly RowResult[],
): number | undefined {
  const ratios: number[] = [];
  for (const row of rows) {
    if (isCampus(row) || !row.counts) continue;
    const before = find(previousRows, (r) => r.id === row.id);
    if (before?.counts === true && before.load.rps > 0) ratios.push(row.load.rps / before.load.rps);
  }
  if (ratios.length === 0) return undefined;
  return Math.exp(ratios.reduce((sum, r) => sum + Math.log(r), 0) / ratios.length);
}

/** Whether an open-loop run's latency can be judged; the check when it cannot. */
function unjudged(row: RowResult, open: OpenLoopRow | undefined): TargetCheck | undefined {
  if (!row.counts) return { verdict: '—', detail: 'row not counted' };
  if (open === undefined) return { verdict: '—', detail: 'open loop not run' };
  if (!open.judged) return { verdict: '—', detail: open.whyNotJudged ?? 'not judged' };
  return undefined;
}

/** oidc-provider's row for the same kind of request (the legacy exchange is judged against /token). */
const peerOf = (row: RowResult, rows: readonly RowResult[]): RowResult | undefined =>
  find(
    rows,
    (r) =>
      r.server === 'oidc-provider' &&
      r.workload === (row.workload === 'legacy-token' ? 'token' : row.workload),
  );

export const TARGETS: readonly Target[] = [
  {
    id: 'userinfo-vs-bare',
    title: 'userinfo ≥ 60% of bare Fastify (req/s)',
    check: (row, rows) =>
      isUserinfoOnSqlite(row) ? compare(row, bareFastify(rows), byRps, (r) => r >= 0.6, pct) : undefined,
  },
  {
    id: 'userinfo-vs-bare-cpu',
    title: 'userinfo ≥ 60% of bare Fastify (CPU/req)',
    check: (row, rows) =>
      isUserinfoOnSqlite(row) ? compare(row, bareFastify(rows), byCpu, (r) => r >= 0.6, pct) : undefined,
  },
  {
    id: 'open-loop-p99',
    title: `p99 < ${OPEN_LOOP_P99_MS} ms at 50% of peak (open loop)`,
    check: (row) => {
      if (!isCampus(row) || row.workload === 'login') return undefined;
      if (!row.counts) return { verdict: '—', detail: 'row not counted' };
      const open = row.openLoop;
      if (open === undefined) return { verdict: '—', detail: 'open loop not run' };
      if (!open.judged) return { verdict: '—', detail: open.whyNotJudged ?? 'not judged' };
      return {
        verdict: open.p99Ms < OPEN_LOOP_P99_MS ? 'PASS' : 'MISS',
        detail: `${open.p99Ms.toFixed(1)} ms`,
      };
    },
  },
  {
    id: 'exchange-vs-peer',
    title: 'token exchange ≥ 2× oidc-provider (req/s)',
    check: (row, rows) =>
      isCampus(row) && isExchange(row)
        ? compare(row, peerExchange(rows), byRps, (r) => r >= 2, times)
        : undefined,
  },
  {
    id: 'exchange-vs-peer-cpu',
    title: 'token exchange ≥ 2× oidc-provider (CPU/req)',
    check: (row, rows) =>
      isExchangeOnSqlite(row) ? compare(row, peerExchange(rows), byCpu, (r) => r >= 2, times) : undefined,
  },
  {
    id: 'userinfo-vs-bare-cpu-2.5',
    title: 'userinfo ≤ 2.5× bare Fastify (CPU/req)',
    check: (row, rows) =>
      isCampus(row) && row.workload === 'userinfo'
        ? compare(
            row,
            bareFastify(rows),
            byCpu,
            (r) => r >= 1 / 2.5,
            (r) => `${(1 / r).toFixed(2)}×`,
          )
        : undefined,
  },
  {
    id: 'steady-p99',
    title: `p99 at the steady rate < ${STEADY_P99_MS.userinfo} ms userinfo, < ${STEADY_P99_MS.exchange} ms exchange`,
    check: (row) => {
      if (!isCampus(row) || row.workload === 'login') return undefined;
      const open = row.steady;
      const cannot = unjudged(row, open);
      if (cannot !== undefined || open === undefined) return cannot;
      const limit = row.workload === 'userinfo' ? STEADY_P99_MS.userinfo : STEADY_P99_MS.exchange;
      return {
        verdict: open.p99Ms < limit ? 'PASS' : 'MISS',
        detail: `${open.p99Ms.toFixed(1)} ms at ${open.targetRps}/s`,
      };
    },
  },
  {
    id: 'half-peak-vs-peer',
    title: "p99 at half peak ≤ oidc-provider's at half its peak",
    check: (row, rows) => {
      if (!isCampus(row) || row.workload === 'login') return undefined;
      const peer = peerOf(row, rows);
      if (peer === undefined) return undefined;
      const cannot = unjudged(row, row.openLoop) ?? unjudged(peer, peer.openLoop);
      if (cannot !== undefined || row.openLoop === undefined || peer.openLoop === undefined) {
        return cannot;
      }
      return {
        verdict: row.openLoop.p99Ms <= peer.openLoop.p99Ms ? 'PASS' : 'MISS',
        detail: `${row.openLoop.p99Ms.toFixed(1)} vs ${peer.openLoop.p99Ms.toFixed(1)} ms`,
      };
    },
  },
  {
    id: 'peak-vs-previous',
    title: 'peak ≥ 95% of the previous run',
    check: (row, rows, previous) => {
      if (!isCampus(row)) return undefined;
      const before = find(previous.rows, (r) => r.id === row.id);
      const pass = (ratio: number): boolean => ratio >= 1 - PEAK_REGRESSION;
      const speed = machineSpeed(rows, previous.rows);
      if (speed === undefined) return compare(row, before, byRps, pass, pct);
      const overSpeed: Metric = (r, reference) => r.load.rps / reference.load.rps / speed;
      const show = (adjusted: number): string =>
        `${pct(adjusted)}; raw ${pct(adjusted * speed)}, peers ${pct(speed)}`;
      return compare(row, before, overSpeed, pass, show);
    },
  },
  {
    id: 'rss',
    title: 'peak RSS < 150 MB',
    check: (row) => {
      if (!isCampus(row)) return undefined;
      if (!row.counts) return { verdict: '—', detail: 'row not counted' };
      const mb = row.peakRssBytes / MB;
      return { verdict: mb < 150 ? 'PASS' : 'MISS', detail: `${mb.toFixed(0)} MB` };
    },
  },
  {
    id: 'scale-flat',
    title: '1M tokens within 10% of 1k',
    check: (row, rows) =>
      isCampus(row) && row.size === 'scale'
        ? compare(
            row,
            find(
              rows,
              (r) =>
                isCampus(r) &&
                r.size === 'base' &&
                r.workload === row.workload &&
                r.database === row.database,
            ),
            byRps,
            (r) => r >= 0.9,
            pct,
          )
        : undefined,
  },
  {
    id: 'postgres-vs-sqlite',
    title: 'PostgreSQL ≥ 50% of SQLite',
    check: (row, rows) =>
      isCampus(row) && row.database === 'postgres'
        ? compare(
            row,
            find(
              rows,
              (r) =>
                isCampus(r) && r.database === 'sqlite' && r.workload === row.workload && r.size === row.size,
            ),
            byRps,
            (r) => r >= 0.5,
            pct,
          )
        : undefined,
  },
];

export function machine(loadBefore: number): Machine {
  let cpuModel = 'unknown';
  try {
    cpuModel =
      /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpuModel;
  } catch {
    // not Linux
  }
  return {
    cpus: availableParallelism(),
    cpuModel,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    date: new Date().toISOString(),
    loadAverage: { before: loadBefore, after: Math.round((loadavg()[0] ?? 0) * 100) / 100 },
  };
}

function reference(
  row: RowResult,
  rows: readonly RowResult[],
  server: string,
  workload: string,
  metric: Metric,
): string {
  if (row.server === server) return '';
  const peer = rows.find((r) => r.server === server && r.workload === workload);
  if (peer === undefined || !row.counts || !peer.counts) return '';
  const ratio = metric(row, peer);
  return ratio === undefined ? '' : `${ratio.toFixed(2)}×`;
}

function cpuCell(row: RowResult): string {
  if (row.cpu === undefined) return '';
  const server = row.cpu.usPerRequest.toFixed(1);
  // PostgreSQL rows: the server's own CPU + the database backends'.
  return row.databaseCpu === undefined ? server : `${server} + ${row.databaseCpu.usPerRequest.toFixed(1)}`;
}

/** The server's event-loop delay over an open-loop run: `p99 / max` in ms. */
function loopCell(open: OpenLoopRow | undefined): string {
  const d = open?.mainThread?.loopDelay;
  return d === undefined ? '' : `${d.p99Ms.toFixed(1)} / ${d.maxMs.toFixed(1)}`;
}

/**
 * How long threads waited for a core over an open-loop run, in ms: the server's main thread in all / the
 * most within one 10 ms reading, then the load generator's thread in all. A loop delay max close to the
 * server's most is a stall the kernel made, not the server.
 */
function runQueueCell(open: OpenLoopRow | undefined): string {
  const r = open?.mainThread?.runQueue;
  if (r === undefined) return '';
  const generator = open?.generatorRunQueueMs;
  return `${r.totalMs.toFixed(0)} / ${r.maxMs.toFixed(1)}${generator === undefined ? '' : `; ${generator.toFixed(0)}`}`;
}

/** The server's GC pauses over an open-loop run: count / total / longest, in ms. */
function gcCell(open: OpenLoopRow | undefined): string {
  const g = open?.mainThread?.gc;
  return g === undefined ? '' : `${g.count} / ${g.totalMs.toFixed(0)} / ${g.maxMs.toFixed(1)}`;
}

function describe(row: RowResult, scaleTokens: number): string {
  const db = row.database === 'sqlite' ? 'SQLite' : row.database === 'postgres' ? 'PostgreSQL' : row.database;
  const tokens =
    row.size === undefined
      ? ''
      : `, ${row.size === 'scale' ? `${scaleTokens.toLocaleString('en-US')}+` : '1,000+'} tokens`;
  return `${row.server} \`${row.endpoint}\` (${db}${tokens})`;
}

export interface Report {
  readonly machine: Machine;
  readonly options: Readonly<Record<string, unknown>>;
  readonly rows: readonly RowResult[];
  readonly verdicts: Readonly<Record<string, Readonly<Record<string, TargetCheck>>>>;
  readonly notes: readonly string[];
}

export function buildReport(
  rows: readonly RowResult[],
  options: Readonly<Record<string, unknown>>,
  notes: readonly string[],
  loadBefore: number,
  previous: PreviousRun = { file: '', rows: [] },
): Report {
  const verdicts: Record<string, Record<string, TargetCheck>> = {};
  for (const row of rows) {
    const checks: Record<string, TargetCheck> = {};
    for (const target of TARGETS) {
      const check = target.check(row, rows, previous);
      if (check !== undefined) checks[target.id] = check;
    }
    verdicts[row.id] = checks;
  }
  return { machine: machine(loadBefore), options, rows, verdicts, notes };
}

/** Columns whose cells are figures (right-aligned). */
const FIGURES = new Set([
  'conns',
  'req/s',
  'CPU µs/req',
  'p50 ms',
  'p99 ms',
  'open-loop req/s (achieved / offered)',
  'open-loop p50 ms',
  'open-loop p99 ms',
  'open-loop loop delay p99 / max ms',
  'open-loop run-queue wait ms: server total / max; generator',
  'open-loop GC n / total / max ms',
  'steady req/s (achieved / offered)',
  'steady p99 ms',
  'steady loop delay p99 / max ms',
  'non-2xx',
  'errors',
  'peak RSS MB',
  '× oidc-provider (req/s)',
  '× oidc-provider (CPU)',
  '× bare Fastify (req/s)',
  '× bare Fastify (CPU)',
]);

export function markdown(report: Report, scaleTokens: number): string {
  const { machine: m, rows } = report;
  const head = [
    '#',
    'row',
    'conns',
    'req/s',
    'CPU µs/req',
    'p50 ms',
    'p99 ms',
    'open-loop req/s (achieved / offered)',
    'open-loop p50 ms',
    'open-loop p99 ms',
    'open-loop loop delay p99 / max ms',
    'open-loop run-queue wait ms: server total / max; generator',
    'open-loop GC n / total / max ms',
    'steady req/s (achieved / offered)',
    'steady p99 ms',
    'steady loop delay p99 / max ms',
    'non-2xx',
    'errors',
    'peak RSS MB',
    '× oidc-provider (req/s)',
    '× oidc-provider (CPU)',
    '× bare Fastify (req/s)',
    '× bare Fastify (CPU)',
    ...TARGETS.map((t) => t.title),
    'counts?',
  ];
  const lines = [
    '# campus-sso benchmark',
    '',
    `Machine: ${m.cpus} CPUs (\`nproc\`), ${m.cpuModel}, ${m.memoryGiB} GiB RAM; Node ${m.node}; ${m.date}; ` +
      `load average ${m.loadAverage.before} before the run, ${m.loadAverage.after} after.`,
    'Load generator (autocannon for the peak, an open-loop generator for the latency at a fixed rate) in the bench ' +
      'process, each server in its own process, all on the same machine over loopback.',
    '',
    `| ${head.join(' | ')} |`,
    `| ${head.map((h) => (FIGURES.has(h) ? '---:' : '---')).join(' | ')} |`,
  ];
  rows.forEach((row, index) => {
    const l = row.load;
    const o = row.openLoop;
    const st = row.steady;
    const checks = report.verdicts[row.id] ?? {};
    const workload = row.workload === 'legacy-token' ? 'token' : row.workload;
    const rps =
      row.workload === 'login'
        ? `${l.rps.toFixed(0)} (${(l.rps / m.cpus).toFixed(0)}/core)`
        : l.rps.toFixed(0);
    const vsPeer = (metric: Metric): string =>
      workload === 'login' ? '' : reference(row, rows, 'oidc-provider', workload, metric);
    const vsBare = (metric: Metric): string =>
      workload === 'userinfo' ? reference(row, rows, 'bare-fastify', 'userinfo', metric) : '';
    const openMark = o !== undefined && !o.judged ? ' (not judged)' : '';
    const cells = [
      String(index + 1),
      describe(row, scaleTokens),
      String(row.connections),
      rps,
      cpuCell(row),
      l.p50Ms.toFixed(2),
      l.p99Ms.toFixed(2),
      o === undefined ? '' : `${o.achievedRps.toFixed(0)} / ${o.targetRps}${openMark}`,
      o === undefined ? '' : o.p50Ms.toFixed(2),
      o === undefined ? '' : o.p99Ms.toFixed(2),
      loopCell(o),
      runQueueCell(o),
      gcCell(o),
      st === undefined
        ? ''
        : `${st.achievedRps.toFixed(0)} / ${st.targetRps}${st.judged ? '' : ' (not judged)'}`,
      st === undefined ? '' : st.p99Ms.toFixed(2),
      loopCell(st),
      String(l.non2xx),
      String(l.errors),
      (row.peakRssBytes / MB).toFixed(0),
      vsPeer(byRps),
      vsPeer(byCpu),
      vsBare(byRps),
      vsBare(byCpu),
      ...TARGETS.map((t) => {
        const check = checks[t.id];
        return check === undefined ? '' : check.verdict === '—' ? '—' : `${check.verdict} (${check.detail})`;
      }),
      row.counts ? 'yes' : `**NOT COUNTED**: ${row.whyNotCounted ?? ''}`,
    ];
    lines.push(`| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`);
  });
  const passes = Object.values(report.verdicts).flatMap((v) => Object.values(v));
  lines.push(
    '',
    `Targets: ${passes.filter((c) => c.verdict === 'PASS').length} PASS, ${
      passes.filter((c) => c.verdict === 'MISS').length
    } MISS, ${passes.filter((c) => c.verdict === '—').length} not judged (row not counted, or open-loop rate not achieved).`,
  );
  const noisy = rows.filter((r) => r.busyBefore > 0.15);
  if (noisy.length > 0) {
    lines.push(
      '',
      `Measured while other work kept the CPUs busy (share just before the row): ${noisy
        .map((r) => `#${rows.indexOf(r) + 1} ${(r.busyBefore * 100).toFixed(0)}%`)
        .join(', ')}. Those rows read low.`,
    );
  }
  const unjudged = rows.filter((r) => r.openLoop !== undefined && !r.openLoop.judged);
  if (unjudged.length > 0) {
    lines.push(
      '',
      `Open-loop latency not judged: ${unjudged
        .map((r) => `#${rows.indexOf(r) + 1} ${r.openLoop?.whyNotJudged ?? ''}`)
        .join('; ')}.`,
    );
  }
  if (report.notes.length > 0) lines.push('', ...report.notes.map((n) => `- ${n}`));
  return lines.join('\n') + '\n';
}
