/**
 * docs/operations.md#logs: `campus-sso serve` logs one line per answered request, with the request's id, and
 * the route pattern when a route matched; never the query string. The line is written through the server's
 * logger, not the request's own (src/http/plugins/access-log.ts), and must read as the request's would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import { ensureBuilt, serveOnAnyPort } from './cli-process.js';

describe('campus-sso serve: the access log', () => {
  let dir: string;

  beforeAll(async () => {
    await ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'campus-sso-access-log-'));
  }, 180_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('logs each answer with reqId, method, path, route, status, ms and ip, in that order', async () => {
    const { serve, baseUrl } = await serveOnAnyPort({ DATABASE_URL: `sqlite:${join(dir, 'sso.sqlite')}` });
    try {
      await fetch(`${baseUrl}/healthz?secret=SECRETQUERY`);
      await fetch(`${baseUrl}/no/such/path?secret=SECRETQUERY`);
      const lines = await waitFor(
        () => {
          const found = serve.stdout.split('\n').filter((line) => line.includes('"msg":"request"'));
          return found.length >= 2 ? found : undefined;
        },
        { timeout: 10_000, interval: 20, what: 'two access lines' },
      );
      expect(lines[0]).toMatch(
        /^\{"level":30,"time":\d+,"pid":\d+,"hostname":"[^"]*","reqId":"req-\d+","method":"GET","path":"\/healthz","route":"\/healthz","status":200,"ms":[\d.]+,"ip":"127\.0\.0\.1","msg":"request"\}$/,
      );
      expect(lines[1]).toMatch(
        /^\{"level":30,"time":\d+,"pid":\d+,"hostname":"[^"]*","reqId":"req-\d+","method":"GET","path":"\/no\/such\/path","status":404,"ms":[\d.]+,"ip":"127\.0\.0\.1","msg":"request"\}$/,
      );
      expect(serve.stdout).not.toContain('SECRETQUERY');
    } finally {
      await serve.stop();
    }
  });
});
