/**
 * The peer: oidc-provider (panva, v9), configured as close to campus-sso's bench rows as it allows.
 *
 * - one client, `client_secret_basic`, a random 32-byte secret (what campus-sso issues);
 * - opaque access tokens (no resource indicators → no JWT access tokens), 256 bits of randomness;
 * - codes carry no scope, so the token endpoint issues no id_token and no refresh token, exactly like the
 *   campus-sso code exchange; PKCE not required (neither side's codes carry a challenge);
 * - v9's userinfo endpoint (`/me`) refuses tokens without the `openid` scope, so the tokens minted for the
 *   userinfo row carry `openid`, and the `openid` scope is configured to release the same claims campus-sso's
 *   get-user-info returns (uin, user_group, created_at, plus the mandatory sub);
 * - storage: the unbounded Map adapter (./map-adapter.ts) instead of the bundled 1,000-entry LRU.
 *
 * Bench-only route (never part of a real deployment): `POST /__bench/mint?kind=codes|tokens&n=N` saves N
 * authorization codes (or N access tokens) through the provider's own models and answers their values.
 *
 *   PORT=8082 CLIENT_ID=… CLIENT_SECRET=… node --import tsx bench/peers/oidc-provider.ts
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Provider, { type Account, type Client } from 'oidc-provider';
import { MapAdapter, mapAdapterSize } from './map-adapter.js';

const port = Number(process.env.PORT ?? 8082);
const clientId = process.env.CLIENT_ID ?? 'benchclient00001';
const clientSecret = process.env.CLIENT_SECRET ?? 'bench-secret-bench-secret-bench-secret-0';
const redirectUri = process.env.REDIRECT_URI ?? 'http://127.0.0.1:9/cb';
const issuer = `http://127.0.0.1:${port}`;

/** The same user campus-sso's rows use. */
const ACCOUNT_ID = '1010553892';
const accounts = new Map<string, Account>([
  [
    ACCOUNT_ID,
    {
      accountId: ACCOUNT_ID,
      claims: async () => ({
        sub: ACCOUNT_ID,
        uin: Number(ACCOUNT_ID),
        user_group: 'admin',
        created_at: '2024-04-18T00:49:37.275Z',
      }),
    },
  ],
]);

const provider = new Provider(issuer, {
  adapter: MapAdapter,
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  findAccount: async (_ctx, sub) => accounts.get(sub),
  scopes: ['openid'],
  claims: { openid: ['sub', 'uin', 'user_group', 'created_at'] },
  features: {
    devInteractions: { enabled: false },
    resourceIndicators: { enabled: false },
    userinfo: { enabled: true },
  },
  pkce: { required: () => false },
  formats: { bitsOfOpaqueRandomness: 256 },
  ttl: {
    AccessToken: 7200,
    AuthorizationCode: 600,
    Grant: 14 * 24 * 3600,
    IdToken: 3600,
    Interaction: 3600,
    Session: 14 * 24 * 3600,
  },
  cookies: { keys: ['campus-sso-bench-only-cookie-key'] },
});

async function findBenchClient(): Promise<Client> {
  const found = await provider.Client.find(clientId);
  if (found === undefined) throw new Error('the bench client is not configured');
  return found;
}
const client = await findBenchClient();

/** One grant per kind of artifact, as one user who authorized one app would have. */
async function newGrant(openid: boolean): Promise<string> {
  const grant = new provider.Grant({ accountId: ACCOUNT_ID, clientId });
  if (openid) grant.addOIDCScope('openid');
  return grant.save();
}

async function mint(kind: 'codes' | 'tokens', n: number): Promise<string[]> {
  const now = Math.floor(Date.now() / 1000);
  const values: string[] = [];
  if (kind === 'codes') {
    const grantId = await newGrant(false);
    for (let i = 0; i < n; i++) {
      const code = new provider.AuthorizationCode({
        accountId: ACCOUNT_ID,
        client,
        grantId,
        redirectUri,
        authTime: now,
      });
      values.push(await code.save());
    }
  } else {
    const grantId = await newGrant(true);
    for (let i = 0; i < n; i++) {
      const token = new provider.AccessToken({
        accountId: ACCOUNT_ID,
        client,
        grantId,
        gty: 'authorization_code',
        scope: 'openid',
      });
      values.push(await token.save());
    }
  }
  return values;
}

async function benchRoute(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', issuer);
  const kind = url.searchParams.get('kind');
  const n = Number(url.searchParams.get('n') ?? '0');
  if (req.method === 'GET' && url.pathname === '/__bench/stats') {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ entries: mapAdapterSize() }));
    return;
  }
  if (req.method !== 'POST' || (kind !== 'codes' && kind !== 'tokens') || !Number.isInteger(n) || n < 1) {
    res.writeHead(400).end('POST /__bench/mint?kind=codes|tokens&n=N');
    return;
  }
  const values = await mint(kind, n);
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(values));
}

const handleProvider = provider.callback();
const server = createServer((req, res) => {
  if (req.url?.startsWith('/__bench/')) {
    benchRoute(req, res).catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
    return;
  }
  handleProvider(req, res);
});
// Same keep-alive behaviour as Fastify's default, so autocannon's connections are not cut mid-run.
server.keepAliveTimeout = 72_000;
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
