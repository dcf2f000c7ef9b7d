import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A stop that resets no connection (docs/operations.md#stopping). Node's `server.close()` closes every idle
 * keep-alive connection at once, and so did a 100 ms reaper here; but a busy client's connection is "idle"
 * only between its answer and its next request, and closing it then, with that request already sent and
 * unread, makes the kernel answer with a reset: the client cannot tell whether its request ran (a token
 * exchange may have). So while draining, a connection is closed only once it has carried nothing for
 * `QUIET_MS`: a busy one instead gets its next request answered with `Connection: close` (503 once Fastify
 * stops accepting work) and ends with that answer. A client that sends its next request at the very moment
 * its quiet connection closes meets the race every keep-alive client must be ready for (RFC 9112 §9.3.1).
 */
const QUIET_MS = 1000;
/** How often, while draining, the connections are looked at. */
const LOOK_INTERVAL_MS = 100;

interface Connection {
  /** Requests whose answer is not finished. */
  inFlight: number;
  /** `socket.bytesRead` when last looked at: bytes of a next request arriving change it. */
  bytesRead: number;
  /** Since when (epoch ms) nothing arrived and nothing was in flight. */
  quietSince: number;
}

export class ConnectionDrain {
  private readonly connections = new Map<Socket, Connection>();
  private timer: NodeJS.Timeout | undefined;

  /** Follows the connections of `server` from now on (one counter per request). */
  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.connections.set(socket, { inFlight: 0, bytesRead: 0, quietSince: Date.now() });
      socket.once('close', () => this.connections.delete(socket));
    });
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const connection = this.connections.get(request.socket);
      if (connection === undefined) return;
      connection.inFlight++;
      response.once('close', () => connection.inFlight--);
    });
  }

  /** Starts draining: no new connection is accepted, and from now on quiet connections are closed, only those. */
  begin(): void {
    const now = Date.now();
    for (const [socket, connection] of this.connections) {
      connection.bytesRead = socket.bytesRead;
      connection.quietSince = now;
    }
    // Node's server.close() calls this to close the idle connections.
    this.server.closeIdleConnections = () => this.closeQuiet();
    // No new connections, from now: before any answer says `Connection: close`. Fastify closes the listener
    // only after its close hooks, and a client told to reconnect meanwhile could land in the listener's
    // queue, which closing it then resets. (Fastify's own close later finds it closed, as it allows.)
    this.server.close();
    this.timer = setInterval(() => this.closeQuiet(), LOOK_INTERVAL_MS);
  }

  /** Stops looking (the server has closed, or the drain's deadline closes what is left). */
  end(): void {
    clearInterval(this.timer);
  }

  private closeQuiet(): void {
    const now = Date.now();
    for (const [socket, connection] of this.connections) {
      if (connection.inFlight > 0 || socket.bytesRead !== connection.bytesRead) {
        connection.bytesRead = socket.bytesRead;
        connection.quietSince = now;
      } else if (now - connection.quietSince >= QUIET_MS) {
        socket.destroy();
      }
    }
  }
}
