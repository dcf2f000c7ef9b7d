/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, or `BENCH_CPU_PROF=1 npm run bench`, which writes
 * dist/bench-profiles/*.cpuprofile): the functions with the most self time, and self time per package.
 *
 *   npx tsx bench/profile.ts dist/bench-profiles/campus-sso-sqlite-base.cpuprofile [top=25]
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Where a frame's code lives: a package, campus-sso's own dist/src, Node's internals, or V8's pseudo-frames. */
export function owner(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1] !== undefined) return pkg[1];
  if (url.includes('/dist/src/'))
    return `campus-sso ${url.slice(url.indexOf('/dist/src/') + 10).split('/')[0] ?? ''}`;
  if (url.startsWith('node:')) return 'node internals';
  return url;
}

function shortUrl(url: string): string {
  const at = Math.max(url.lastIndexOf('node_modules/'), url.lastIndexOf('/dist/src/'));
  return at >= 0 ? url.slice(at) : url;
}

export function summarise(profile: CpuProfile, top: number): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfByFunction = new Map<string, number>();
  const selfByOwner = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    const micros = profile.timeDeltas[index] ?? 0;
    if (node === undefined) return;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = url ? `${functionName || '(anonymous)'}  ${shortUrl(url)}:${lineNumber + 1}` : functionName;
    selfByFunction.set(name, (selfByFunction.get(name) ?? 0) + micros);
    const who = owner(url, functionName);
    selfByOwner.set(who, (selfByOwner.get(who) ?? 0) + micros);
    total += micros;
  });
  const busy = total - (selfByOwner.get('(idle)') ?? 0);
  const line = ([name, micros]: [string, number]): string =>
    `${((micros / busy) * 100).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${name}`;
  const sorted = (map: Map<string, number>): [string, number][] =>
    [...map.entries()].filter(([name]) => name !== '(idle)').sort((a, b) => b[1] - a[1]);
  return [
    `busy ${(busy / 1000).toFixed(0)} ms of ${(total / 1000).toFixed(0)} ms sampled (percentages of busy time)`,
    '',
    'self time by package:',
    ...sorted(selfByOwner).slice(0, 15).map(line),
    '',
    `top ${top} functions by self time:`,
    ...sorted(selfByFunction).slice(0, top).map(line),
  ].join('\n');
}

const [file, topArg] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('usage: tsx bench/profile.ts <file.cpuprofile> [top]\n');
  process.exit(2);
}
process.stdout.write(
  `${summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(topArg ?? 25))}\n`,
);
