/**
 * docs/operations.md "TRUST_PROXY": the client address that per-address throttling sees is the first one not
 * added by a trusted proxy — never the client's own leftmost X-Forwarded-For entry.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Browser } from '../helpers/http.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

/** The test talks to the server from 127.0.0.1, as nginx on the same machine would. */
const PROXY = '127.0.0.1';
/** The address nginx saw the request come from and appended. */
const CLIENT = '203.0.113.7';

describe('POST /v1/account/login behind a reverse proxy (TRUST_PROXY)', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** Signs in wrongly once with this X-Forwarded-For; answers the addresses the throttle counted. */
  async function countedAddresses(trustProxy: string | undefined, forwardedFor: string): Promise<string[]> {
    server = await startTestServer({
      transport: 'inject',
      env: trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy },
    });
    const answer = await new Browser(server).call(
      'POST',
      '/v1/account/login',
      { uin: 10001, password: 'a wrong guess' },
      { 'x-forwarded-for': forwardedFor },
    );
    expect(answer.status).toBe(401);
    const counted: string[] = [];
    for (const address of [PROXY, CLIENT, '198.51.100.1', '198.51.100.2']) {
      if (await server.ctx.store.throttles.get(`ip:${address}`)) counted.push(address);
    }
    return counted;
  }

  it('believes no X-Forwarded-For by default', async () => {
    expect(await countedAddresses(undefined, `198.51.100.1, ${CLIENT}`)).toEqual([PROXY]);
  });

  it('takes TRUST_PROXY=true as one hop: the entry the proxy added, not the leftmost the client sent', async () => {
    expect(await countedAddresses('true', `198.51.100.1, ${CLIENT}`)).toEqual([CLIENT]);
  });

  it('counts TRUST_PROXY=2 hops from the socket', async () => {
    expect(await countedAddresses('2', `198.51.100.1, 198.51.100.2, ${CLIENT}`)).toEqual(['198.51.100.2']);
  });

  it('believes only the listed proxy addresses and CIDRs', async () => {
    expect(await countedAddresses(`${PROXY}`, `198.51.100.1, ${CLIENT}`)).toEqual([CLIENT]);
    await server?.close();
    expect(await countedAddresses(`${PROXY}, 203.0.113.0/24`, `198.51.100.1, ${CLIENT}`)).toEqual([
      '198.51.100.1',
    ]);
  });

  it('locks the proxied client address after 100 failures however the client varies its X-Forwarded-For', async () => {
    server = await startTestServer({ transport: 'inject', env: { TRUST_PROXY: 'true' } });
    const statuses: number[] = [];
    for (let i = 0; i < 110; i++) {
      const answer = await new Browser(server).call(
        'POST',
        '/v1/account/login',
        { uin: 20000 + i, password: 'a wrong guess' },
        { 'x-forwarded-for': `198.51.${Math.floor(i / 250)}.${i % 250}, ${CLIENT}` },
      );
      statuses.push(answer.status);
    }
    expect(statuses.slice(0, 100).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(100).every((status) => status === 429)).toBe(true);
  }, 180_000);
});
