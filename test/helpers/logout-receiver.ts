/**
 * A relying party's back-channel logout endpoint (OpenID Connect Back-Channel Logout 1.0 §2.5) for tests:
 * records every request, and answers 200 — or, while `down`, 503.
 */
import { type Server, createServer } from 'node:http';
import { type Browser, json } from './http.js';
import { waitFor } from './wait.js';

export interface ReceivedLogout {
  readonly contentType: string | undefined;
  readonly body: string;
  /** The form's `logout_token`. */
  readonly logoutToken: string | null;
}

export class LogoutReceiver {
  readonly received: ReceivedLogout[] = [];
  /** While true, every POST is answered 503. */
  down = false;
  private server: Server | undefined;
  port = 0;

  get uri(): string {
    return `http://127.0.0.1:${this.port}/backchannel-logout`;
  }

  /** Listens on a port the system picks (`port` says which): never on one chosen before, which could be taken. */
  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        if (this.down) {
          response.writeHead(503).end();
          return;
        }
        this.received.push({
          contentType: request.headers['content-type'],
          body,
          logoutToken: new URLSearchParams(body).get('logout_token'),
        });
        response.writeHead(200, { 'cache-control': 'no-store' }).end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Waits until `count` logouts have arrived (or fails after `timeoutMs`). */
  async waitFor(count: number, timeoutMs = 10_000): Promise<ReceivedLogout[]> {
    await waitFor(() => this.received.length >= count, {
      timeout: timeoutMs,
      what: `${count} back-channel logouts (${this.received.length} so far)`,
    });
    return this.received;
  }
}

/**
 * Waits until the server has tried to deliver a logout to the app `clientId` (the admin API's
 * `backchannel_logout_last_attempt`, read as the signed-in `admin`); answers that attempt's result.
 */
export async function deliveryAttempted(admin: Browser, clientId: string): Promise<string> {
  return waitFor(
    async () => {
      const answer = await json<{
        data: { app: { backchannel_logout_last_attempt: { result: string } | null } };
      }>(await admin.call('GET', `/v1/admin/apps/${clientId}`));
      return answer.data.app.backchannel_logout_last_attempt?.result;
    },
    { interval: 25, what: `a delivery attempt to ${clientId}` },
  );
}
