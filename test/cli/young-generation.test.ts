/**
 * `campus-sso serve` runs with a 4 MiB young generation however it is started (src/cli/young-generation.ts,
 * docs/operations.md#requirements): `node dist/src/cli.js serve`, without the shebang's flag, relaunches
 * itself with it, passes the stop signal on and exits with the server's status, and the server does not
 * outlive a parent killed outright.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasSemiSpaceFlag } from '../../src/cli/young-generation.js';
import { ServeProcess, ensureBuilt, freePort } from './cli-process.js';

let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'campus-sso-young-generation-'));
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function startServe(): Promise<{ serve: ServeProcess; port: number }> {
  const port = await freePort();
  const serve = ServeProcess.start({
    PORT: String(port),
    DATABASE_URL: `sqlite:${join(dir, `sso-${port}.sqlite`)}`,
    LOG_LEVEL: 'info',
  });
  await serve.waitUntilServing(`http://127.0.0.1:${port}/healthz`);
  return { serve, port };
}

/** The server's own report of the process that serves: its pid and the Node flags it runs with. */
async function servingLine(serve: ServeProcess): Promise<{ pid: number; node_flags: string[] }> {
  for (let i = 0; i < 100; i++) {
    const line = serve.logLines.find((l) => l.msg === 'serving');
    if (line !== undefined) return line as unknown as { pid: number; node_flags: string[] };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no "serving" line in: ${serve.stdout}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntilGone(pid: number): Promise<void> {
  for (let i = 0; i < 200 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 25));
}

describe('the young generation of `campus-sso serve`', () => {
  it('serves with --max-semi-space-size=4 when started as `node dist/src/cli.js serve`', async () => {
    const { serve } = await startServe();
    const serving = await servingLine(serve);
    expect(serving.node_flags).toContain('--max-semi-space-size=4');
    // The relaunched server is a child of the process that was started.
    expect(serving.pid).not.toBe(serve.child.pid);
    expect(await serve.stop()).toBe(0);
    await waitUntilGone(serving.pid);
    expect(alive(serving.pid)).toBe(false);
  }, 60_000);

  it('stops the server when the process in front of it is killed with SIGKILL', async () => {
    const { serve, port } = await startServe();
    const serving = await servingLine(serve);
    serve.child.kill('SIGKILL');
    await waitUntilGone(serving.pid);
    expect(alive(serving.pid)).toBe(false);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  }, 60_000);

  it('recognises the flag on the command line and in NODE_OPTIONS, in either spelling', () => {
    expect(hasSemiSpaceFlag(['--max-semi-space-size=4'], undefined)).toBe(true);
    expect(hasSemiSpaceFlag([], '--enable-source-maps --max_semi_space_size=8')).toBe(true);
    expect(hasSemiSpaceFlag(['--max-old-space-size=512'], '--max-semi-space')).toBe(false);
    expect(hasSemiSpaceFlag([], undefined)).toBe(false);
  });
});
