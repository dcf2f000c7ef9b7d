/**
 * The server's young generation (docs/operations.md#requirements): V8 sizes it when the process starts, so
 * every documented way to start `campus-sso serve` must pass `--max-semi-space-size=4` — `npm start`, the
 * `campus-sso` command (its shebang), and every `node … dist/src/cli.js serve` the README and docs show. The
 * server names the flags it runs with in its `serving` log line.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, ServeProcess, cliEnv, ensureBuilt } from './cli-process.js';

const FLAG = '--max-semi-space-size=4';
let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'campus-sso-start-paths-'));
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('every documented start path of `campus-sso serve` passes the young generation flag', () => {
  it('npm start runs the CLI with the flag', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      bin: Record<string, string>;
    };
    expect(pkg.scripts.start).toMatch(/node --max-semi-space-size=4 dist\/src\/cli\.js serve$/);
    expect(pkg.bin['campus-sso']).toBe('dist/src/cli.js');
  });

  it('every `node … cli.js serve` in the README and docs carries the flag', () => {
    const files = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const commands = files.flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\bnode\b[^`\n]*cli\.js serve/g)].map(
        (m) => `${file}: ${m[0]}`,
      ),
    );
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) expect(command).toContain(FLAG);
  });

  it('the `campus-sso` command, run through its shebang, serves with the flag', async () => {
    expect(readFileSync(CLI, 'utf8').split('\n')[0]).toBe(`#!/usr/bin/env -S node ${FLAG}`);
    // As npm links the command: executable, started by the kernel through its first line.
    chmodSync(CLI, 0o755);
    // PORT=0: the system picks the port, and the `serving` line says which.
    const env = cliEnv({
      PORT: '0',
      DATABASE_URL: `sqlite:${join(dir, 'sso.sqlite')}`,
      LOG_LEVEL: 'info',
    });
    // The shebang's `node` is found on PATH, as on a school's server.
    const path = `${join(process.execPath, '..')}:${env.PATH ?? process.env.PATH ?? ''}`;
    const serve = new ServeProcess(spawn(CLI, ['serve'], { cwd: ROOT, env: { ...env, PATH: path } }));
    try {
      const url = await serve.listening();
      expect((await fetch(new URL('/healthz', url))).status).toBe(200);
      const serving = serve.logLines.find((line) => line.msg === 'serving');
      expect(serving?.node_flags).toContain(FLAG);
      expect(serving?.pid).toBe(serve.child.pid);
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  }, 60_000);
});
