/**
 * `npm run bench`: campus-sso against oidc-provider and a bare Fastify route, on one machine, in one run.
 * Settings: see bench/lib/options.ts (BENCH_QUICK=1 for a smoke run). Writes bench/results/latest.{md,json}.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  postgresDatabase,
  newCredentials,
  sqliteDatabase,
  type CampusDatabase,
  type Grantee,
} from './lib/campus-db.js';
import { CLI, provision, REDIRECT_URI, startCampus } from './lib/campus-sso.js';
import {
  codesNeeded,
  measureRow,
  MIN_ACHIEVED,
  progress,
  type MeasureOptions,
  type RowResult,
  type RowSpec,
} from './lib/measure.js';
import { readOptions, type BenchOptions } from './lib/options.js';
import { startBareFastify, startOidcProvider } from './lib/peers.js';
import { buildReport, markdown, readPrevious } from './lib/report.js';
import {
  bearerRequests,
  legacyTokenRequests,
  legacyTokenResponse,
  legacyUserInfo,
  loginRequests,
  loginResponse,
  oidcUserInfo,
  tokenRequests,
  tokenResponse,
} from './lib/requests.js';
import { BENCH_UIN } from './lib/campus-sso.js';
import type { ServerProcess } from './lib/server-process.js';

const RESULTS = 'bench/results';
const USERINFO = '/v1/oauth2/get-user-info';
const LOGIN_USERS = 8;
/** How many distinct tokens the userinfo rows rotate through in the scale rows (spread over the table). */
const SCALE_KNOWN_TOKENS = 10_000;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

const options = readOptions();
// The peak-regression target compares with the run this one replaces.
const previous = readPrevious(join(RESULTS, 'latest.json'));
const timing: MeasureOptions = {
  warmupSeconds: options.warmupSeconds,
  durationSeconds: options.durationSeconds,
  quietWaitSeconds: options.quietWaitSeconds,
  openLoopShare: options.openLoopShare,
  openLoopConnections: options.openLoopConnections,
  ...(options.openLoopRate === undefined ? {} : { openLoopRate: options.openLoopRate }),
  steadyRates: options.steadyRates,
  log,
};
const rows: RowResult[] = [];
const notes: string[] = [];
const running = new Set<ServerProcess>();
const databases = new Set<CampusDatabase>();

async function row(
  spec: RowSpec,
  server: ServerProcess,
  source: Parameters<typeof measureRow>[2],
  liveTokens?: () => Promise<number>,
  databasePids?: () => Promise<readonly number[]>,
): Promise<void> {
  if (!options.wantRow(spec.id)) return;
  const result = await measureRow(spec, server, source, timing, liveTokens, databasePids);
  rows.push(result);
  log(progress(result));
}

async function started<T extends ServerProcess>(server: T): Promise<T> {
  running.add(server);
  return server;
}

async function stop(server: ServerProcess): Promise<void> {
  await server.stop();
  running.delete(server);
}

async function peerRows(o: BenchOptions): Promise<void> {
  const C = o.connections;
  if (o.groups.has('userinfo') && o.wantRow('userinfo/bare-fastify')) {
    log('bare Fastify (ceiling)');
    const bare = await started(await startBareFastify());
    // The same Authorization headers campus-sso gets, so the client side does identical work.
    const tokens = newCredentials(o.baseTokens);
    await row(
      {
        id: 'userinfo/bare-fastify',
        workload: 'userinfo',
        server: 'bare-fastify',
        endpoint: `GET ${USERINFO}`,
        database: 'none',
        connections: C,
        checkBody: legacyUserInfo(BENCH_UIN),
      },
      bare,
      async () => bearerRequests(USERINFO, tokens),
    );
    await stop(bare);
  }
  if (!o.groups.has('userinfo') && !o.groups.has('token')) return;
  if (!o.wantRow('userinfo/oidc-provider') && !o.wantRow('token/oidc-provider')) return;
  log('oidc-provider (peer)');
  const peer = await startOidcProvider();
  running.add(peer.server);
  if (o.groups.has('userinfo')) {
    const tokens = await peer.mint('tokens', o.baseTokens);
    await row(
      {
        id: 'userinfo/oidc-provider',
        workload: 'userinfo',
        server: 'oidc-provider',
        endpoint: 'GET /me',
        database: 'in-memory',
        connections: C,
        checkBody: oidcUserInfo(BENCH_UIN),
      },
      peer.server,
      async () => bearerRequests('/me', tokens),
    );
  }
  if (o.groups.has('token')) {
    await row(
      {
        id: 'token/oidc-provider',
        workload: 'token',
        server: 'oidc-provider',
        endpoint: 'POST /token',
        database: 'in-memory',
        connections: C,
        checkBody: tokenResponse,
      },
      peer.server,
      async (phase, rps) =>
        tokenRequests(
          '/token',
          peer.client,
          REDIRECT_URI,
          await peer.mint('codes', codesNeeded(phase, rps, timing)),
        ),
    );
  }
  await stop(peer.server);
}

/** campus-sso on one database: the 1k-token rows, then (after a bulk insert) the 1M-token rows. */
async function campusRows(o: BenchOptions, database: CampusDatabase, withScale: boolean): Promise<void> {
  const kind = database.kind;
  const C = o.connections;
  // The scale rows and the PostgreSQL rows are judged against these base rows, so they bring them along.
  const wantUserinfo = kind === 'postgres' || o.groups.has('userinfo') || withScale;
  const wantToken = kind === 'postgres' || o.groups.has('token') || withScale;
  const wantLogin = kind === 'sqlite' && o.groups.has('login');
  log(`campus-sso on ${kind}: provisioning through the CLI`);
  const provisioned = await provision(database, wantLogin ? LOGIN_USERS : 0);
  const { client } = provisioned;
  const grantee: Grantee = {
    clientId: client.clientId,
    uin: provisioned.benchUin,
    redirectUri: REDIRECT_URI,
  };
  const baseTokens = await database.insertTokens(o.baseTokens, 1, grantee);
  const liveTokens = (): Promise<number> => database.countLiveTokens();
  // PostgreSQL: the database backends' CPU is counted beside the server's (SQLite runs inside the server).
  const backendPids = database.backendPids?.bind(database);
  const mintCodes = async (phase: 'warmup' | 'measure', rps: number): Promise<string[]> => {
    const codes = newCredentials(codesNeeded(phase, rps, timing));
    await database.insertCodes(codes, grantee);
    return codes;
  };
  // Under dist/ (git-ignored): profiles are large and machine-specific.
  const profileDir = o.cpuProfile ? 'dist/bench-profiles' : undefined;
  const start = (name: string): Promise<ServerProcess> =>
    startCampus(database, name, profileDir === undefined ? {} : { cpuProfileDir: profileDir }).then(started);

  const exchangeRows = async (
    size: 'base' | 'scale',
    server: ServerProcess,
    legacy: boolean,
  ): Promise<void> => {
    await row(
      {
        id: `token/campus-sso/${kind}/${size}`,
        workload: 'token',
        server: 'campus-sso',
        endpoint: 'POST /v1/oauth2/token',
        database: kind,
        size,
        connections: C,
        checkBody: tokenResponse,
      },
      server,
      async (phase, rps) =>
        tokenRequests('/v1/oauth2/token', client, REDIRECT_URI, await mintCodes(phase, rps)),
      liveTokens,
      backendPids,
    );
    if (!legacy) return;
    await row(
      {
        id: `legacy-token/campus-sso/${kind}/${size}`,
        workload: 'legacy-token',
        server: 'campus-sso',
        endpoint: 'POST /v1/oauth2/get-access-token',
        database: kind,
        size,
        connections: C,
        checkBody: legacyTokenResponse,
      },
      server,
      async (phase, rps) => legacyTokenRequests(client, await mintCodes(phase, rps)),
      liveTokens,
      backendPids,
    );
  };

  const server = await start(`campus-sso-${kind}-base`);
  if (wantUserinfo) {
    await row(
      {
        id: `userinfo/campus-sso/${kind}/base`,
        workload: 'userinfo',
        server: 'campus-sso',
        endpoint: `GET ${USERINFO}`,
        database: kind,
        size: 'base',
        connections: C,
        checkBody: legacyUserInfo(provisioned.benchUin),
      },
      server,
      async () => bearerRequests(USERINFO, baseTokens),
      liveTokens,
      backendPids,
    );
  }
  if (wantToken) await exchangeRows('base', server, kind === 'sqlite' && o.groups.has('token'));
  if (wantLogin) {
    await row(
      {
        id: `login/campus-sso/${kind}`,
        workload: 'login',
        server: 'campus-sso',
        endpoint: 'POST /v1/account/login',
        database: kind,
        connections: o.loginConnections,
        checkBody: loginResponse,
      },
      server,
      async () => loginRequests(provisioned.loginUsers),
    );
  }
  await stop(server);

  if (
    withScale &&
    (o.wantRow(`userinfo/campus-sso/${kind}/scale`) || o.wantRow(`token/campus-sso/${kind}/scale`))
  ) {
    const before = await liveTokens();
    const toAdd = Math.max(0, o.scaleTokens - before);
    log(`campus-sso on ${kind}: inserting ${toAdd.toLocaleString('en-US')} live tokens (server stopped)`);
    const t0 = Date.now();
    const knownEvery = Math.max(1, Math.floor(toAdd / SCALE_KNOWN_TOKENS));
    const scaleTokens = await database.insertTokens(toAdd, knownEvery, grantee);
    log(
      `  inserted in ${((Date.now() - t0) / 1000).toFixed(1)} s; ${(await liveTokens()).toLocaleString('en-US')} live tokens`,
    );
    const server = await start(`campus-sso-${kind}-scale`);
    await row(
      {
        id: `userinfo/campus-sso/${kind}/scale`,
        workload: 'userinfo',
        server: 'campus-sso',
        endpoint: `GET ${USERINFO}`,
        database: kind,
        size: 'scale',
        connections: C,
        checkBody: legacyUserInfo(provisioned.benchUin),
      },
      server,
      async () => bearerRequests(USERINFO, scaleTokens),
      liveTokens,
      backendPids,
    );
    await exchangeRows('scale', server, false);
    await stop(server);
  }
}

async function campusAll(o: BenchOptions): Promise<void> {
  if (!existsSync(CLI)) {
    notes.push(`campus-sso rows skipped: ${CLI} does not exist (run \`npm run build:server\`).`);
    log(notes[notes.length - 1] ?? '');
    return;
  }
  const sqliteBase = o.groups.has('userinfo') || o.groups.has('token') || o.groups.has('login');
  const sqliteScale = o.groups.has('scale-sqlite');
  if (sqliteBase || sqliteScale) {
    const dir = mkdtempSync(join(tmpdir(), 'campus-sso-bench-'));
    const database = sqliteDatabase(join(dir, 'bench.sqlite'));
    databases.add(database);
    try {
      await campusRows(o, database, sqliteScale);
    } finally {
      await database.drop();
      databases.delete(database);
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (o.groups.has('postgres')) {
    let database: CampusDatabase;
    try {
      database = await postgresDatabase(o.postgresUrl, o.postgresAsyncCommit);
      if (o.postgresAsyncCommit) {
        notes.push(
          'DIAGNOSIS RUN: the PostgreSQL database had synchronous_commit=off (BENCH_PG_ASYNC_COMMIT=1).',
        );
      }
    } catch (error) {
      notes.push(`PostgreSQL rows skipped: cannot create a database at ${o.postgresUrl} (${String(error)}).`);
      log(notes[notes.length - 1] ?? '');
      return;
    }
    databases.add(database);
    try {
      await campusRows(o, database, true);
    } finally {
      await database.drop();
      databases.delete(database);
    }
  }
}

async function cleanUp(): Promise<void> {
  for (const server of running) await server.stop().catch(() => undefined);
  for (const database of databases) await database.drop().catch(() => undefined);
}

process.on('SIGINT', () => {
  log('interrupted: stopping servers and dropping bench databases');
  void cleanUp().finally(() => process.exit(130));
});

const began = Date.now();
const loadBefore = Math.round((loadavg()[0] ?? 0) * 100) / 100;
if (loadBefore > 0.5 * availableParallelism()) {
  log(`warning: the machine is busy (load average ${loadBefore}); the numbers will be low and noisy`);
}
log(
  `campus-sso bench: ${timing.warmupSeconds}s warm-up + ${timing.durationSeconds}s per row, ${options.connections} connections` +
    `${options.quick ? ' (BENCH_QUICK)' : ''}; groups: ${[...options.groups].join(', ')}`,
);
try {
  await peerRows(options);
  await campusAll(options);
} finally {
  await cleanUp();
}

notes.push(
  "CPU µs/req: the server process's user + system CPU time (/proc/<pid>/stat, all its threads) over the " +
    'measured seconds, divided by the requests it answered; on PostgreSQL rows "a + b" is the server\'s and ' +
    "the database backends' (the database's background writers are not counted). On a shared machine req/s " +
    'follows whatever else runs; CPU per request far less, though a server held to a fraction of its rate ' +
    "handles fewer requests per event-loop wake-up and pays more for each. × columns: req/s over the reference's req/s, " +
    "and the reference's CPU/req over the row's (above 1 = less CPU per request).",
  `Open loop: after the peak, ${options.openLoopRate === undefined ? `${Math.round(options.openLoopShare * 100)}% of the row's measured req/s` : `${options.openLoopRate} req/s (BENCH_OPEN_RATE)`} is offered ` +
    `at a fixed rate for ${timing.durationSeconds} s over a pool of ${options.openLoopConnections} connections, ` +
    'whatever the answers do (bench/lib/open-loop.ts); p50/p99 from release to answer, waits for a free ' +
    `connection included. Judged only when every answer is 2xx and the achieved rate is ≥ ${MIN_ACHIEVED * 100}% ` +
    'of the offered. It replaces "p99 < 5 ms at 64 closed-loop connections", which Little\'s law rules out ' +
    `below ${Math.round(64 / 0.005).toLocaleString('en-US')} req/s whatever the server does.`,
);
notes.push(
  `Each row: ${timing.warmupSeconds} s warm-up (discarded), then ${timing.durationSeconds} s measured closed-loop ` +
    `(${options.connections} connections unless the row says otherwise), then the open-loop run; latencies from ` +
    'every response (µs resolution).',
  'A row counts only with zero non-2xx answers and zero socket errors; ratios and verdicts use counting rows only.',
  'Token-exchange rows use codes minted before the row (campus-sso: inserted into its database; oidc-provider: saved ' +
    'through its AuthorizationCode model into an unbounded Map adapter), each sent exactly once.',
  `"1,000+ tokens" rows start with 1,000 live tokens plus those earlier exchange rows issued; "scale" rows start ` +
    `with at least ${options.scaleTokens.toLocaleString('en-US')} (see live tokens in latest.json).`,
  `Whole run: ${((Date.now() - began) / 1000).toFixed(0)} s.`,
);
notes.push(
  `Server event-loop delay and GC pauses: read inside each server by a bench-only preload ` +
    '(bench/probe/loop-probe.ts: `monitorEventLoopDelay` sampled every 5 ms, and every `gc` performance entry) ' +
    'over each open-loop run. "Run-queue wait": how long a thread was ready to run with no core free (Linux ' +
    "schedstat): the server's main thread in all and the most within one 10 ms reading, then the load " +
    "generator's thread; a loop-delay max near the server's most is the kernel's doing, and an answer the " +
    'generator read while waiting is late by that wait. ' +
    `"Steady": every server offered the same rate (userinfo ${options.steadyRates.userinfo}/s, ` +
    `exchanges ${options.steadyRates.token}/s). "peak ≥ 95% of the previous run" compares with ${previous.file} as it ` +
    `was when this run began (${previous.rows.length} counted rows; another machine there makes it meaningless), ` +
    "over how fast the machine ran: each peak ratio is divided by the geometric mean of the peers' peak ratios " +
    '(bare Fastify and oidc-provider, the same code in both runs; "peers" in the cell), and the raw ratio is shown beside it.',
);
const { wantRow: _wantRow, partial: _partial, ...settings } = options;
const report = buildReport(
  rows,
  { ...settings, groups: [...options.groups], steadyRates: options.steadyRates },
  notes,
  loadBefore,
  previous,
);
const table = markdown(report, options.scaleTokens);
mkdirSync(RESULTS, { recursive: true });
// A run of some rows (BENCH_ROWS) never replaces the last full run.
const written = options.partial ? 'partial' : 'latest';
writeFileSync(join(RESULTS, `${written}.md`), table);
writeFileSync(join(RESULTS, `${written}.json`), `${JSON.stringify(report, null, 2)}\n`);
log(`\n${table}`);
log(`written: ${RESULTS}/${written}.md, ${RESULTS}/${written}.json`);
