/** The two reference servers, each in its own plain `node` process (see compile-peers.ts). */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { REDIRECT_URI, type Client } from './campus-sso.js';
import { compilePeers, PEERS_OUT, PROBE } from './compile-peers.js';
import { freePort, startServer, type ServerProcess } from './server-process.js';

function peerArgs(name: string): string[] {
  compilePeers();
  return [`--import=${PROBE}`, join(PEERS_OUT, `${name}.js`)];
}

export async function startBareFastify(): Promise<ServerProcess> {
  const port = await freePort();
  return startServer({
    name: 'bare-fastify',
    command: process.execPath,
    args: peerArgs('bare-fastify'),
    env: { PORT: String(port) },
    port,
    readyPath: '/healthz',
    probe: true,
  });
}

export interface OidcProviderPeer {
  readonly server: ServerProcess;
  readonly client: Client;
  /** Saves n codes (or n openid access tokens) inside the peer; answers their values. */
  mint(kind: 'codes' | 'tokens', n: number): Promise<string[]>;
}

export async function startOidcProvider(): Promise<OidcProviderPeer> {
  const port = await freePort();
  // Same shapes as campus-sso's credentials: a 16-character client_id, a 32-byte secret.
  const client: Client = {
    clientId: 'BenchPeer0000001',
    clientSecret: randomBytes(32).toString('base64url'),
  };
  const server = await startServer({
    name: 'oidc-provider',
    command: process.execPath,
    args: peerArgs('oidc-provider'),
    env: {
      PORT: String(port),
      CLIENT_ID: client.clientId,
      CLIENT_SECRET: client.clientSecret,
      REDIRECT_URI,
    },
    port,
    readyPath: '/.well-known/openid-configuration',
    probe: true,
  });
  return {
    server,
    client,
    async mint(kind, n) {
      const values: string[] = [];
      // In slices, so no single answer is huge.
      for (let done = 0; done < n; done += 50_000) {
        const size = Math.min(50_000, n - done);
        const response = await fetch(`${server.baseUrl}/__bench/mint?kind=${kind}&n=${size}`, {
          method: 'POST',
        });
        if (!response.ok)
          throw new Error(`oidc-provider mint failed: ${response.status} ${await response.text()}`);
        values.push(...((await response.json()) as string[]));
      }
      return values;
    },
  };
}
