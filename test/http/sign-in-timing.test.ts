/**
 * docs/security.md: an unknown uin, a wrong password, an imported (previous-system) hash and a disabled account
 * get the same answer in the same time (medians within 10%), so timing tells neither which accounts exist nor
 * which came from the previous system. Tries are interleaved so that load on the machine hits every case alike.
 */
import { hash } from '@node-rs/argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../helpers/http.js';
import { DATABASES, type TestServer, startTestServer } from '../helpers/server.js';
import { skipUnreachable } from '../storage/databases.js';

const TRIES = 50;
const PASSWORD = 'the right password';

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

describe.each(DATABASES)('POST /v1/account/login refusals (%s)', (database) => {
  if (skipUnreachable(database)) return;
  let server: TestServer;
  let now = Date.UTC(2026, 0, 1);

  beforeAll(async () => {
    server = await startTestServer({ database, clock: { now: () => now } });
    await server.ctx.users.create(5_000_000_001, PASSWORD, 'user');
  }, 60_000);
  afterAll(async () => server?.close());

  it('answers an unknown uin, a wrong password, an imported hash and a disabled account alike, in the same time within 10%', async () => {
    const wrongPassword = 5_000_000_001;
    const imported = 5_000_000_002;
    const disabled = 5_000_000_003;
    const unknown = 5_000_000_004;
    await server.ctx.store.users.insert({
      uin: imported,
      // As the previous system hashed it (m=65536,t=1,p=2), kept as it is by import-campux.
      passwordHash: await hash(PASSWORD, { memoryCost: 65_536, timeCost: 1, parallelism: 2 }),
      userGroup: 'user',
      createdAt: now,
      disabled: false,
    });
    await server.ctx.users.create(disabled, PASSWORD, 'user');
    await server.ctx.users.setDisabled(disabled, true);

    const cases = [
      { name: 'unknown uin', uin: unknown, password: 'a wrong guess' },
      { name: 'wrong password', uin: wrongPassword, password: 'a wrong guess' },
      { name: 'imported hash, wrong password', uin: imported, password: 'a wrong guess' },
      { name: 'disabled account, right password', uin: disabled, password: PASSWORD },
    ];
    const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
    const bodies = new Set<string>();
    for (let round = -1; round < TRIES; round++) {
      // A fresh throttle window every round: 200 refusals must not lock the accounts or the address.
      now += 2 * 60 * 60_000;
      const order = round % 2 === 0 ? cases : [...cases].reverse();
      for (const c of order) {
        const start = performance.now();
        const answer = await new Browser(server.baseUrl).login(c.uin, c.password);
        const text = await answer.text();
        const elapsed = performance.now() - start;
        expect(answer.status, `${c.name}: ${text}`).toBe(401);
        bodies.add(text);
        // Round -1 warms up (the dummy hashes are made on first use).
        if (round >= 0) times.get(c.name)!.push(elapsed);
      }
    }
    expect([...bodies]).toEqual([JSON.stringify({ code: 1, msg: 'wrong uin or password', data: {} })]);
    const medians = Object.fromEntries([...times].map(([name, values]) => [name, median(values)]));
    const values = Object.values(medians);
    const ratio = Math.max(...values) / Math.min(...values);
    expect(ratio, `medians in ms: ${JSON.stringify(medians)}`).toBeLessThanOrEqual(1.1);
  }, 180_000);
});
