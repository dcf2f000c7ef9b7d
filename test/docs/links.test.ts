/**
 * The code cites the repository's own documentation (`docs/interface.md#token-endpoint`, `README.md#configuration`)
 * or an RFC, never a
 * document that lives elsewhere. Every such citation must lead somewhere: the file exists and, when an
 * anchor is given, one of its headings has that GitHub anchor.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SOURCES = ['src', 'web/src', 'test', 'bench', 'scripts'];
const CODE = /\.(ts|vue|mjs|js|sh)$/;

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry === 'node_modules' || entry === 'results') continue;
    if (statSync(path).isDirectory()) yield* files(path);
    else if (CODE.test(entry)) yield path;
  }
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const match = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!match) continue;
    const base = slug(match[1] ?? '');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

interface Citation {
  readonly where: string;
  readonly file: string;
  readonly anchor: string | undefined;
}

function citations(): Citation[] {
  const found: Citation[] = [];
  for (const source of SOURCES) {
    const dir = join(ROOT, source);
    if (!existsSync(dir)) continue;
    for (const path of files(dir)) {
      if (path === import.meta.filename) continue;
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          for (const match of line.matchAll(/(docs\/[a-z0-9-]+\.md|README\.md)(?:#([a-z0-9-]+))?/g)) {
            found.push({
              where: `${relative(ROOT, path)}:${index + 1}`,
              file: match[1] ?? '',
              anchor: match[2],
            });
          }
        });
    }
  }
  return found;
}

describe('citations in the code', () => {
  const all = citations();

  it('are found (the scan itself works)', () => {
    expect(all.length).toBeGreaterThan(20);
  });

  it('lead to a docs/ file or README.md, and a heading, that exist', () => {
    const anchors = new Map<string, Set<string>>();
    const broken: string[] = [];
    for (const citation of all) {
      const path = join(ROOT, citation.file);
      if (!existsSync(path)) {
        broken.push(`${citation.where}: ${citation.file} does not exist`);
        continue;
      }
      if (!anchors.has(path)) anchors.set(path, anchorsOf(readFileSync(path, 'utf8')));
      if (citation.anchor !== undefined && !anchors.get(path)?.has(citation.anchor)) {
        broken.push(`${citation.where}: ${citation.file} has no heading #${citation.anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('never cite the contract or style documents that live outside the repository', () => {
    const outside: string[] = [];
    for (const source of SOURCES) {
      const dir = join(ROOT, source);
      if (!existsSync(dir)) continue;
      for (const path of files(dir)) {
        if (path === import.meta.filename) continue;
        readFileSync(path, 'utf8')
          .split('\n')
          .forEach((line, index) => {
            if (/SPEC \u00a7|STYLE\.md/.test(line)) outside.push(`${relative(ROOT, path)}:${index + 1}`);
          });
      }
    }
    expect(outside).toEqual([]);
  });
});
