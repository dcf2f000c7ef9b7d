/**
 * docs/operations.md#stopping: SIGTERM under busy keep-alive clients resets no connection. 48 clients, each on
 * its own keep-alive connection, send request after request to the real `campus-sso serve`; the process is
 * sent SIGTERM mid-traffic. Every request the server received is answered (with `Connection: close`, or 503
 * once it stops accepting work); a client whose next connection is refused stops; the process exits 0
 * within SHUTDOWN_TIMEOUT.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/fixture.js';
import { TEST_SECRET_KEY, freshPostgresSchema } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { ensureBuilt, serveOnAnyPort } from './cli-process.js';

const CLIENTS = 48;
const SHUTDOWN_TIMEOUT_S = 5;

interface Tally {
  answered: number;
  /** Clients that have had an answer on their keep-alive connection. */
  connected: Set<number>;
  answeredClose: number;
  status503: number;
  refused: number;
  /** Requests that got no answer: the connection was reset or closed under them. */
  lost: string[];
}

/** One answer to one request on `agent`'s single keep-alive connection, or the error the request met. */
function once(
  agent: Agent,
  port: number,
  kind: Kind,
): Promise<{ status: number; connection: string } | { error: string; connection: string }> {
  return new Promise((resolve) => {
    const { path, body } = kind;
    const headers = body ? { 'content-type': 'application/x-www-form-urlencoded' } : {};
    const method = body ? 'POST' : 'GET';
    const req = request({ host: '127.0.0.1', port, path, agent, method, headers }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, connection: String(res.headers.connection ?? '') }),
      );
      res.on('error', (error: NodeJS.ErrnoException) =>
        resolve({ error: error.code ?? error.message, connection: 'the answer' }),
      );
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({
        error: error.code ?? error.message,
        connection: req.reusedSocket ? 'a reused connection' : 'a new connection',
      }),
    );
    req.end(body);
  });
}

/** What a client asks, again and again. */
interface Kind {
  readonly path: string;
  readonly body?: string;
}

const KINDS: readonly Kind[] = [
  { path: '/healthz' },
  // Reads the signing keys from the database.
  { path: '/.well-known/jwks.json' },
  // A token exchange (of an unknown client: 401 after a database read).
  {
    path: '/v1/oauth2/token',
    body: 'grant_type=authorization_code&code=no-such-code&client_id=nobody&client_secret=nothing',
  },
];

/** Sends request after request until the server refuses a new connection. */
async function busyClient(client: number, port: number, kind: Kind, tally: Tally): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (;;) {
      const answer = await once(agent, port, kind);
      if ('error' in answer) {
        if (answer.error === 'ECONNREFUSED') {
          tally.refused++;
          return;
        }
        tally.lost.push(`${kind.path}: ${answer.error} on ${answer.connection}`);
        return;
      }
      tally.answered++;
      tally.connected.add(client);
      if (answer.status === 503) tally.status503++;
      if (answer.connection === 'close') tally.answeredClose++;
    }
  } finally {
    agent.destroy();
  }
}

describeEachDatabase('campus-sso serve, stopped by SIGTERM under busy keep-alive clients', (database) => {
  let dir: string;
  let schema: { url: string; drop: () => Promise<void> } | undefined;

  beforeAll(async () => {
    await ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'campus-sso-drain-'));
    if (database === 'postgres') schema = await freshPostgresSchema();
  }, 180_000);

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await schema?.drop();
  });

  it('answers every request it received and resets no connection, then exits 0 in time', async () => {
    const { serve, port } = await serveOnAnyPort({
      DATABASE_URL: schema?.url ?? `sqlite:${join(dir, 'sso.sqlite')}`,
      ...(schema ? { SECRET_KEY: TEST_SECRET_KEY } : {}),
      SHUTDOWN_TIMEOUT: String(SHUTDOWN_TIMEOUT_S),
    });
    const tally: Tally = {
      answered: 0,
      connected: new Set(),
      answeredClose: 0,
      status503: 0,
      refused: 0,
      lost: [],
    };
    const clients = Array.from({ length: CLIENTS }, (_, i) =>
      busyClient(i, port, KINDS[i % KINDS.length] ?? { path: '/healthz' }, tally),
    );
    // Traffic is flowing on every connection before the signal. (A connection still waiting in the
    // listener's queue when it closes is reset by the kernel: it never reached the server.)
    await waitFor(() => tally.connected.size === CLIENTS && tally.answered >= CLIENTS * 10, {
      timeout: 30_000,
      interval: 20,
      what: 'traffic on every connection',
    });
    const before = tally.answered;
    const started = Date.now();
    const code = await serve.stop();
    const seconds = (Date.now() - started) / 1000;
    await Promise.all(clients);
    expect(tally.lost).toEqual([]);
    expect(tally.refused).toBe(CLIENTS);
    // The drain answered the requests it received, each saying the connection closes.
    expect(tally.answered).toBeGreaterThan(before);
    expect(tally.answeredClose).toBeGreaterThan(0);
    expect(code).toBe(0);
    expect(seconds).toBeLessThan(SHUTDOWN_TIMEOUT_S);
  }, 60_000);
});
