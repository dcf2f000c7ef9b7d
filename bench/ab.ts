/**
 * `npm run bench:ab -- <other checkout>`: this build against another one (the commit before a change), run
 * interleaved. Both servers run side by side on databases of their own; each workload is measured in short
 * bursts that alternate between the two (A B, then B A, …), so whatever else the machine does in a minute
 * hits both builds alike. `npm run bench` measures each row once, minutes apart from its counterpart in an
 * earlier run; on a shared VM that moves a row by 10–20% with no change to the code, more than the
 * differences worth knowing. Here each round gives one paired ratio (this build over the other), and the
 * median of those ratios is the answer.
 *
 * The other checkout must be built, pages included (`npm ci && npm run build` in it). Its own CLI
 * migrates and provisions its database, so two builds with different schemas compare fairly; the bench's
 * code and token inserts (bench/lib/campus-db.ts) use only the columns every migration so far has kept.
 *
 * Settings (environment):
 *   BENCH_AB_ROUNDS     bursts per build and workload                         (default 8)
 *   BENCH_AB_WORKLOADS  comma-separated: userinfo, token, legacy-token, login  (default the first three)
 *   BENCH_AB_DATABASE   sqlite or postgres                                     (default sqlite)
 *   BENCH_AB_TOKENS     live access tokens in each database before the first burst (default 1000;
 *                       1000000 for the scale rows of `npm run bench`)
 *   BENCH_DURATION      measured seconds per burst                             (default 5)
 *   BENCH_WARMUP        discarded seconds before each burst                    (default 1)
 *   BENCH_CONNECTIONS   closed-loop connections                                (default 64; login 8,
 *                       BENCH_LOGIN_CONNECTIONS)
 *   BENCH_POSTGRES_URL  as for `npm run bench`
 *   BENCH_CPU_PROF      1 = both servers run with --cpu-prof; profiles go to dist/bench-profiles/ab-{A,B}.cpuprofile
 *   BENCH_AB_OTHER_FIRST 1 = provision the other build's database first (both are provisioned before either
 *                       server starts; run both orders to see that the order favours neither)
 * Writes bench/results/ab.md and prints it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  newCredentials,
  postgresDatabase,
  sqliteDatabase,
  type CampusDatabase,
  type Grantee,
} from './lib/campus-db.js';
import { CLI, provision, REDIRECT_URI, startCampus, type Provisioned } from './lib/campus-sso.js';
import { cpuMeter, processesCpuMeter } from './lib/cpu.js';
import { runLoad, type BodyCheck, type RequestSource } from './lib/load.js';
import {
  bearerRequests,
  legacyTokenRequests,
  legacyTokenResponse,
  legacyUserInfo,
  loginRequests,
  loginResponse,
  tokenRequests,
  tokenResponse,
} from './lib/requests.js';
import type { ServerProcess } from './lib/server-process.js';

const WORKLOADS = ['userinfo', 'token', 'legacy-token', 'login'] as const;
type Workload = (typeof WORKLOADS)[number];

const RESULTS = 'bench/results';
const USERINFO = '/v1/oauth2/get-user-info';
/** Sign-in rotates over this many users (each with its own password hash), as `npm run bench` does. */
const LOGIN_USERS = 8;
/** How many distinct tokens the userinfo workload rotates through (spread over the whole table). */
const KNOWN_TOKENS = 10_000;
/** One-time codes per warm-up second: more than a campus-sso build on a small machine can redeem. */
const WARMUP_CODES_PER_SECOND = 30_000;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number, not "${raw}"`);
  return value;
}

function readWorkloads(): Workload[] {
  const raw = process.env.BENCH_AB_WORKLOADS;
  if (raw === undefined || raw.trim() === '') return ['userinfo', 'token', 'legacy-token'];
  return raw.split(',').map((part) => {
    const name = part.trim();
    if (!(WORKLOADS as readonly string[]).includes(name)) {
      throw new Error(`BENCH_AB_WORKLOADS: unknown workload "${name}" (known: ${WORKLOADS.join(', ')})`);
    }
    return name as Workload;
  });
}

const otherRoot = process.argv[2];
if (otherRoot === undefined) {
  log('usage: npm run bench:ab -- <path of another campus-sso checkout, built>');
  process.exit(2);
}
const otherCli = resolve(otherRoot, 'dist/src/cli.js');
if (!existsSync(otherCli)) {
  log(`${otherCli} does not exist: run \`npm ci && npm run build\` in ${otherRoot} first`);
  process.exit(2);
}
// Without dist/web a build serves no pages, and its server registers no static routes: a lighter server
// than the one measured here (about 2% less CPU per user-information request on PostgreSQL), so the
// comparison would not be like for like.
if (!existsSync(resolve(otherRoot, 'dist/web/index.html'))) {
  log(
    `${otherRoot} has no built pages (dist/web): run \`npm run build:web\` there first, so both builds serve alike`,
  );
  process.exit(2);
}
const settings = {
  rounds: Math.round(positive('BENCH_AB_ROUNDS', 8)),
  workloads: readWorkloads(),
  database: process.env.BENCH_AB_DATABASE === 'postgres' ? ('postgres' as const) : ('sqlite' as const),
  durationSeconds: positive('BENCH_DURATION', 5),
  warmupSeconds: positive('BENCH_WARMUP', 1),
  connections: Math.round(positive('BENCH_CONNECTIONS', 64)),
  loginConnections: Math.round(positive('BENCH_LOGIN_CONNECTIONS', 8)),
  tokens: Math.round(positive('BENCH_AB_TOKENS', 1_000)),
  postgresUrl: (process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432').replace(/\/+$/, ''),
  /** Provisions the other build's database first (the default is this build's first). */
  otherFirst: process.env.BENCH_AB_OTHER_FIRST === '1',
};

/** One build under comparison: its CLI, its database, its running server. */
interface Build {
  readonly label: string;
  readonly commit: string;
  readonly database: CampusDatabase;
  readonly provisioned: Provisioned;
  readonly server: ServerProcess;
  readonly tokens: readonly string[];
}

interface Burst {
  readonly rps: number;
  /** Server CPU µs per answered request (plus the database backends' on PostgreSQL). */
  readonly cpuUs: number | undefined;
  /** Of which the database backends' (PostgreSQL only). */
  readonly databaseCpuUs: number | undefined;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

function commitOf(root: string): string {
  try {
    const commit = execFileSync('git', ['-C', root, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' });
    const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
    });
    return `${commit.trim()}${dirty.trim() === '' ? '' : ' (with uncommitted changes)'}`;
  } catch {
    return '(not a git checkout)';
  }
}

const cleanups: (() => Promise<void>)[] = [];

async function newDatabase(): Promise<CampusDatabase> {
  if (settings.database === 'postgres') {
    const database = await postgresDatabase(settings.postgresUrl);
    cleanups.push(() => database.drop());
    return database;
  }
  const dir = mkdtempSync(join(tmpdir(), 'campus-sso-ab-'));
  const database = sqliteDatabase(join(dir, 'bench.sqlite'));
  cleanups.push(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  return database;
}

/** A build's database, provisioned through its own CLI and filled with the live tokens; no server yet. */
type Provision = Omit<Build, 'server'> & { readonly cli: string };

async function provisionBuild(label: string, root: string, cli: string): Promise<Provision> {
  log(`${label}: ${commitOf(root)}: provisioning through its CLI`);
  const database = await newDatabase();
  const provisioned = await provision(database, settings.workloads.includes('login') ? LOGIN_USERS : 0, cli);
  const knownEvery = Math.max(1, Math.floor(settings.tokens / KNOWN_TOKENS));
  const tokens = await database.insertTokens(settings.tokens, knownEvery, grantee(provisioned));
  return { label, commit: commitOf(root), database, provisioned, tokens, cli };
}

async function startBuild({ cli, ...build }: Provision): Promise<Build> {
  const server = await startCampus(build.database, `ab-${build.label}`, {
    cli,
    ...(process.env.BENCH_CPU_PROF === '1' ? { cpuProfileDir: resolve('dist/bench-profiles') } : {}),
  });
  cleanups.push(() => server.stop());
  return { ...build, server };
}

function grantee(provisioned: Provisioned): Grantee {
  return {
    clientId: provisioned.client.clientId,
    uin: provisioned.benchUin,
    redirectUri: REDIRECT_URI,
  };
}

/** `codes`: how many one-time codes to mint for an exchange workload. */
async function source(build: Build, workload: Workload, codeCount: number): Promise<RequestSource> {
  if (workload === 'userinfo') return bearerRequests(USERINFO, build.tokens);
  if (workload === 'login') return loginRequests(build.provisioned.loginUsers);
  const codes = newCredentials(codeCount);
  await build.database.insertCodes(codes, grantee(build.provisioned));
  const client = build.provisioned.client;
  return workload === 'token'
    ? tokenRequests('/v1/oauth2/token', client, REDIRECT_URI, codes)
    : legacyTokenRequests(client, codes);
}

function bodyCheck(build: Build, workload: Workload): BodyCheck {
  if (workload === 'userinfo') return legacyUserInfo(build.provisioned.benchUin);
  if (workload === 'login') return loginResponse;
  return workload === 'token' ? tokenResponse : legacyTokenResponse;
}

async function burst(build: Build, workload: Workload): Promise<Burst> {
  const common = {
    baseUrl: build.server.baseUrl,
    connections: workload === 'login' ? settings.loginConnections : settings.connections,
    checkBody: bodyCheck(build, workload),
  };
  const warmup = await runLoad({
    ...common,
    source: await source(build, workload, Math.ceil(settings.warmupSeconds * WARMUP_CODES_PER_SECOND)),
    durationSeconds: settings.warmupSeconds,
  });
  // Twice the warm-up's rate, and never fewer than 15,000 a second: a warm-up that other work on the machine
  // slowed to a third of the burst after it ran the burst out of codes.
  const codeCount = Math.ceil(Math.max(2 * warmup.rps, 15_000) * settings.durationSeconds) + 5_000;
  const measured = await source(build, workload, codeCount);
  const backends = build.database.backendPids?.bind(build.database);
  const databaseMeter = backends === undefined ? undefined : await processesCpuMeter(backends);
  const meter = cpuMeter(build.server.pid);
  const load = await runLoad({ ...common, source: measured, durationSeconds: settings.durationSeconds });
  const cpu = meter.stop(load.requests);
  const databaseCpu = await databaseMeter?.stop(load.requests);
  const problems: string[] = [];
  if (load.non2xx > 0) problems.push(`${load.non2xx} non-2xx (${load.sampleFailure ?? '?'})`);
  if (load.errors > 0) problems.push(`${load.errors} socket errors`);
  if (load.exhausted) problems.push('ran out of codes');
  if (load.wrongBody !== undefined) problems.push(`wrong body: ${load.wrongBody}`);
  if (problems.length > 0) throw new Error(`${build.label} ${workload}: ${problems.join('; ')}`);
  return {
    rps: load.rps,
    cpuUs: cpu === undefined ? undefined : cpu.usPerRequest + (databaseCpu?.usPerRequest ?? 0),
    databaseCpuUs: databaseCpu?.usPerRequest,
    p50Ms: load.p50Ms,
    p99Ms: load.p99Ms,
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

function percent(ratio: number): string {
  const value = (ratio - 1) * 100;
  return `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(1)}%`;
}

interface Comparison {
  readonly workload: Workload;
  readonly current: Burst[];
  readonly other: Burst[];
}

/** Paired ratios, round by round: this build's value over the other's in the same round. */
function pairedRatios(comparison: Comparison, pick: (burst: Burst) => number | undefined): number[] {
  const ratios: number[] = [];
  comparison.current.forEach((burst, index) => {
    const mine = pick(burst);
    const theirs = comparison.other[index] === undefined ? undefined : pick(comparison.other[index]);
    if (mine !== undefined && theirs !== undefined && theirs > 0) ratios.push(mine / theirs);
  });
  return ratios;
}

function report(current: Build, other: Build, comparisons: readonly Comparison[], seconds: number): string {
  const lines = [
    '# campus-sso A/B: this build against another, interleaved',
    '',
    `- this build (A): ${current.commit}`,
    `- other build (B): ${other.commit}`,
    `- ${settings.database === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, ${settings.tokens.toLocaleString('en-US')}+ live tokens, ` +
      `${settings.connections} connections (sign-in ${settings.loginConnections}); ${settings.rounds} rounds of ${settings.warmupSeconds} s warm-up + ` +
      `${settings.durationSeconds} s measured per build and workload, order alternating (A B, B A, …); ` +
      `databases provisioned ${settings.otherFirst ? 'B then A' : 'A then B'}, then both servers started`,
    `- ${availableParallelism()} CPUs, ${cpus()[0]?.model ?? '?'}; Node ${process.version}; ` +
      `${new Date().toISOString()}; load average ${loadavg()[0]?.toFixed(2) ?? '?'} at the end; ${seconds.toFixed(0)} s`,
    '',
    '| workload | A req/s (median) | B req/s (median) | A/B req/s (median of paired ratios) | range of paired ratios | A CPU µs/req | B CPU µs/req | A/B CPU (median of paired ratios) | A p99 ms | B p99 ms |',
    '| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const comparison of comparisons) {
    const rps = pairedRatios(comparison, (b) => b.rps);
    const cpu = pairedRatios(comparison, (b) => b.cpuUs);
    // On PostgreSQL "total (database …)": the backends' share of the total.
    const cpuOf = (bursts: readonly Burst[]): string => {
      const values = bursts.flatMap((b) => (b.cpuUs === undefined ? [] : [b.cpuUs]));
      const database = bursts.flatMap((b) => (b.databaseCpuUs === undefined ? [] : [b.databaseCpuUs]));
      if (values.length === 0) return '?';
      const total = median(values).toFixed(1);
      return database.length === 0 ? total : `${total} (database ${median(database).toFixed(1)})`;
    };
    lines.push(
      `| ${comparison.workload} | ${median(comparison.current.map((b) => b.rps)).toFixed(0)} | ` +
        `${median(comparison.other.map((b) => b.rps)).toFixed(0)} | ${percent(median(rps))} | ` +
        `${percent(Math.min(...rps))} … ${percent(Math.max(...rps))} | ${cpuOf(comparison.current)} | ` +
        `${cpuOf(comparison.other)} | ${cpu.length === 0 ? '?' : percent(median(cpu))} | ` +
        `${median(comparison.current.map((b) => b.p99Ms)).toFixed(2)} | ${median(comparison.other.map((b) => b.p99Ms)).toFixed(2)} |`,
    );
  }
  lines.push(
    '',
    'A/B req/s above 0% = this build answers more per second; A/B CPU below 0% = it spends less CPU per request. ' +
      'CPU is the server process (all threads) over the measured seconds, plus the database backends on PostgreSQL.',
    '',
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const began = Date.now();
  // Both databases first, then both servers. Started before the other build was provisioned, a server sat
  // idle through it (a minute at 1,000,000 tokens), and A/A runs of one build read −6.8% and +10.0% against
  // whichever server that was.
  const provisionCurrent = (): Promise<Provision> => provisionBuild('A', process.cwd(), CLI);
  const provisionOther = (): Promise<Provision> => provisionBuild('B', otherRoot as string, otherCli);
  let currentProvision: Provision;
  let otherProvision: Provision;
  if (settings.otherFirst) {
    otherProvision = await provisionOther();
    currentProvision = await provisionCurrent();
  } else {
    currentProvision = await provisionCurrent();
    otherProvision = await provisionOther();
  }
  const current = await startBuild(currentProvision);
  const other = await startBuild(otherProvision);
  const comparisons: Comparison[] = [];
  for (const workload of settings.workloads) {
    const comparison: Comparison = { workload, current: [], other: [] };
    for (let round = 0; round < settings.rounds; round++) {
      const order = round % 2 === 0 ? [current, other] : [other, current];
      for (const build of order) {
        const result = await burst(build, workload);
        (build === current ? comparison.current : comparison.other).push(result);
        log(
          `  ${workload.padEnd(13)} round ${round + 1}/${settings.rounds} ${build.label}: ${result.rps.toFixed(0).padStart(6)} req/s, ` +
            `CPU ${result.cpuUs?.toFixed(1) ?? '?'}` +
            `${result.databaseCpuUs === undefined ? '' : ` (database ${result.databaseCpuUs.toFixed(1)})`} µs/req, p99 ${result.p99Ms.toFixed(2)} ms`,
        );
      }
    }
    comparisons.push(comparison);
  }
  const table = report(current, other, comparisons, (Date.now() - began) / 1000);
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'ab.md'), table);
  log(`\n${table}`);
  log(`written: ${RESULTS}/ab.md`);
}

async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
}

process.on('SIGINT', () => {
  log('interrupted: stopping servers and dropping bench databases');
  void cleanUp().finally(() => process.exit(130));
});

try {
  await main();
} finally {
  await cleanUp();
}
