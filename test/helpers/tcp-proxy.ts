/**
 * A TCP proxy on 127.0.0.1 that a test puts between the server and PostgreSQL, to break the network the way
 * production does:
 * - `cut()`: every connection is reset, and new ones are refused (a killed backend, a proxy restart, a host
 *   that is gone);
 * - `stall()`: connections stay open but nothing passes any more, either way, and new ones get no answer (a
 *   partition, a firewall or NAT that drops a connection silently);
 * - `restore()`: new connections work again; the stalled ones stay silent for good, as after a failover;
 * - `cutAfter(marker)`: the connection that next sends `marker` (a named statement, say) gets its statement
 *   run and committed by PostgreSQL, then everything is cut before the answer passes: a commit the server
 *   never hears about.
 */
import { type Server, type Socket, connect, createServer } from 'node:net';

type Mode = 'forward' | 'cut' | 'stall';

interface Pair {
  readonly client: Socket;
  readonly upstream: Socket | undefined;
  /** Nothing is forwarded any more, either way. */
  silent: boolean;
  /** Sent the marker of `cutAfter`: its answer is held until PostgreSQL is ready again, then cut. */
  watched: boolean;
}

/** PostgreSQL's ReadyForQuery outside a transaction ('Z', length 5, 'I'): the statement before it is committed. */
const READY_IDLE = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);

export class TcpProxy {
  private mode: Mode = 'forward';
  private readonly pairs = new Set<Pair>();
  private armed: { marker: Buffer; cut: () => void } | undefined;
  /** Connections accepted so far (each one the server opened to the database). */
  accepted = 0;

  private readonly server: Server;
  private listening = 0;

  private constructor(private readonly target: { host: string; port: number }) {
    this.server = createServer((client) => this.accept(client));
  }

  /** The port the proxy listens on. */
  get port(): number {
    return this.listening;
  }

  /** Listens on a free port of 127.0.0.1 and forwards to `target`. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = proxy.server.address();
    proxy.listening = typeof address === 'object' && address ? address.port : 0;
    return proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  route(url: string): string {
    const routed = new URL(url);
    routed.hostname = '127.0.0.1';
    routed.port = String(this.port);
    return routed.href;
  }

  private accept(client: Socket): void {
    this.accepted++;
    client.on('error', () => undefined);
    if (this.mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    if (this.mode === 'stall') {
      const pair: Pair = { client, upstream: undefined, silent: true, watched: false };
      this.pairs.add(pair);
      client.on('close', () => this.pairs.delete(pair));
      client.resume();
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    const pair: Pair = { client, upstream, silent: false, watched: false };
    this.pairs.add(pair);
    upstream.on('error', () => client.destroy());
    client.on('data', (chunk: Buffer) => {
      if (this.armed && chunk.includes(this.armed.marker)) pair.watched = true;
      if (!pair.silent) upstream.write(chunk);
    });
    let held = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      if (pair.silent) return;
      if (!pair.watched) {
        client.write(chunk);
        return;
      }
      held = Buffer.concat([held, chunk]);
      if (held.includes(READY_IDLE)) this.armed?.cut();
    });
    const close = (): void => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close);
    upstream.on('close', close);
  }

  /** Resets every connection and refuses new ones until `restore()`. */
  cut(): void {
    this.mode = 'cut';
    for (const pair of this.pairs) {
      pair.client.resetAndDestroy();
      pair.upstream?.destroy();
    }
    this.pairs.clear();
  }

  /**
   * Cuts every connection (as `cut()`) once the connection that sends `marker` has had it answered and is
   * idle again, so committed, withholding that answer; resolves then. Until `restore()`, new ones are refused.
   */
  cutAfter(marker: string): Promise<void> {
    return new Promise((resolve) => {
      this.armed = {
        marker: Buffer.from(marker),
        cut: () => {
          this.armed = undefined;
          this.cut();
          resolve();
        },
      };
    });
  }

  /** Silences every connection, open and new, keeping them open, until `restore()` (new ones only). */
  stall(): void {
    this.mode = 'stall';
    for (const pair of this.pairs) pair.silent = true;
  }

  /** New connections are forwarded again; a silenced connection stays silent. */
  restore(): void {
    this.mode = 'forward';
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
