/**
 * How much each way of giving PostgreSQL queries a deadline makes V8 promote to the old generation: the
 * measurement behind src/storage/postgres-pool.ts (docs/architecture.md#storage).
 *
 *   npm run bench:gc            (BENCH_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test)
 *
 * Each way runs in its own `node --trace-gc --trace-gc-nvp` process with the server's semi-space size: 64
 * callers share a pool of 10 connections and run 100,000 small named statements. The table gives the bytes
 * promoted per scavenge (V8's `promoted` field) once the first 50 scavenges (start-up) are past.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PostgresQueries } from '../src/storage/postgres-pool.js';

const WAYS = {
  'no deadline (pg.Pool.query)': 'none',
  "pg's query_timeout (pg.Pool.query)": 'pg-query-timeout',
  'PostgresQueries.query (campus-sso)': 'campus-sso',
} as const;
type Way = (typeof WAYS)[keyof typeof WAYS];

const QUERIES = 100_000;
const CALLERS = 64;
const DEADLINE_MS = 10_000;
const WARM_UP_SCAVENGES = 50;
const url = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** One child: the queries of one way, as fast as they answer. */
async function runQueries(way: Way): Promise<void> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    ...(way === 'pg-query-timeout' ? { query_timeout: DEADLINE_MS } : {}),
  });
  const queries = new PostgresQueries(pool, DEADLINE_MS);
  let issued = 0;
  const statement = (n: number): pg.QueryConfig => ({
    name: 'bench_gc_promotion',
    text: "select $1::int as n, now() as at, repeat('x', 100) as filler",
    values: [n],
  });
  const caller = async (): Promise<void> => {
    while (issued < QUERIES) {
      const config = statement(issued++);
      await (way === 'campus-sso' ? queries.query(config) : pool.query(config));
    }
  };
  await Promise.all(Array.from({ length: CALLERS }, caller));
  await pool.end();
}

interface Reading {
  readonly scavenges: number;
  readonly promotedKbPerScavenge: number;
  readonly seconds: number;
}

/** Runs one way in a child process under --trace-gc-nvp and reads its scavenges. */
function measure(way: Way): Promise<Reading> {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      '--trace-gc',
      '--trace-gc-nvp',
      '--max-semi-space-size=4',
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      '--child',
      way,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env: process.env },
  );
  const promoted: number[] = [];
  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.includes(' gc=s ')) continue;
      const match = / promoted=(\d+)/.exec(line);
      if (match?.[1] !== undefined) promoted.push(Number(match[1]));
    }
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) {
        reject(new Error(`${way}: the child exited with ${code}`));
        return;
      }
      const counted = promoted.slice(WARM_UP_SCAVENGES);
      const total = counted.reduce((sum, bytes) => sum + bytes, 0);
      resolve({
        scavenges: counted.length,
        promotedKbPerScavenge: counted.length === 0 ? Number.NaN : total / counted.length / 1000,
        seconds: (Date.now() - started) / 1000,
      });
    });
  });
}

async function main(): Promise<void> {
  const childAt = process.argv.indexOf('--child');
  if (childAt >= 0) {
    await runQueries(process.argv[childAt + 1] as Way);
    return;
  }
  const lines = [
    `# Promoted to the old generation per scavenge, ${QUERIES.toLocaleString('en-US')} statements by ${CALLERS} callers`,
    '',
    `Node ${process.version}; ${new Date().toISOString()}`,
    '',
    '| way | scavenges counted | promoted KB per scavenge | seconds |',
    '| --- | ---: | ---: | ---: |',
  ];
  for (const [label, way] of Object.entries(WAYS)) {
    const reading = await measure(way);
    lines.push(
      `| ${label} | ${reading.scavenges} | ${reading.promotedKbPerScavenge.toFixed(1)} | ${reading.seconds.toFixed(1)} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
