/**
 * The peers are written in TypeScript but must run as plain JavaScript: under tsx's loader a process carries
 * ~27 MB more RSS than under bare `node`, which would make the peers' memory look worse than campus-sso's
 * compiled `dist/`. So each peer is transpiled (types stripped, nothing else) into dist/bench-peers/, where
 * bare imports still resolve from the project's node_modules.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const SOURCE = resolve('bench/peers');
export const PEERS_OUT = resolve('dist/bench-peers');

export function compilePeers(): void {
  mkdirSync(PEERS_OUT, { recursive: true });
  for (const file of readdirSync(SOURCE)) {
    if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
    const { outputText } = ts.transpileModule(readFileSync(join(SOURCE, file), 'utf8'), {
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
