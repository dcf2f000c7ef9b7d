/**
 * The peers are written in TypeScript but must run as plain JavaScript: under tsx's loader a process carries
 * ~27 MB more RSS than under bare `node`, which would make the peers' memory look worse than campus-sso's
 * compiled `dist/`. So each peer is transpiled (types stripped, nothing else) into dist/bench-peers/, where
 * bare imports still resolve from the project's node_modules.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

/** The peers, and the probe every server under test is started with (bench/probe/loop-probe.ts). */
const SOURCES = [resolve('bench/peers'), resolve('bench/probe')];
export const PEERS_OUT = resolve('dist/bench-peers');
/** The compiled probe, for `node --import`. */
export const PROBE = join(PEERS_OUT, 'loop-probe.js');

let compiled = false;

/** Transpiles the peers and the probe once per bench run. */
export function compilePeers(): void {
  if (compiled) return;
  compiled = true;
  mkdirSync(PEERS_OUT, { recursive: true });
  for (const source of SOURCES) compileDirectory(source);
}

function compileDirectory(source: string): void {
  for (const file of readdirSync(source)) {
    if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
    const { outputText } = ts.transpileModule(readFileSync(join(source, file), 'utf8'), {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
      fileName: file,
    });
    writeFileSync(join(PEERS_OUT, file.replace(/\.ts$/, '.js')), outputText);
  }
}
