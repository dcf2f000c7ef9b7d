/**
 * docs/security.md: with the school's directory configured, a refusal takes the same time whatever its reason
 * (medians within 10%): an unknown uin, a local user's wrong password, a directory user's wrong password and a
 * disabled directory user with the right one. Tries are interleaved so that load hits every case alike.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, manualClock } from '../helpers/fixture.js';
import { Browser } from '../helpers/http.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { type TestDirectory, startTestDirectory } from '../helpers/slapd.js';

const TRIES = 30;
const PASSWORD = 'the right password';

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

let directory: TestDirectory;
beforeAll(async () => {
  directory = await startTestDirectory();
}, 60_000);
afterAll(async () => {
  await directory?.close();
});

describeEachDatabase(
  'POST /v1/account/login refusals with the school directory',
  (database) => {
    let server: TestServer;
    const clock = manualClock(Date.UTC(2026, 0, 1));
    const local = 7_000_000_001;
    const person = 7_000_000_002;
    const disabledPerson = 7_000_000_003;
    const unknown = 7_000_000_004;

    beforeAll(async () => {
      server = await startTestServer({ transport: 'inject', database, clock, env: directory.env() });
      await server.ctx.users.create(local, PASSWORD, 'user');
      await directory.addPerson({ uin: person, cn: 'Person', password: PASSWORD });
      await directory.addPerson({ uin: disabledPerson, cn: 'Disabled', password: PASSWORD });
      expect((await new Browser(server).login(disabledPerson, PASSWORD)).status).toBe(200);
      await server.ctx.users.setDisabled(disabledPerson, true);
      expect((await new Browser(server).login(person, PASSWORD)).status).toBe(200);
    }, 60_000);
    afterAll(async () => {
      await server?.close();
    });

    it('answers an unknown uin, wrong local and directory passwords and a disabled directory user alike, in the same time within 10%', async () => {
      const cases = [
        { name: 'unknown uin', uin: unknown, password: 'a wrong guess' },
        { name: 'local, wrong password', uin: local, password: 'a wrong guess' },
        { name: 'directory, wrong password', uin: person, password: 'a wrong guess' },
        { name: 'directory, disabled, right password', uin: disabledPerson, password: PASSWORD },
      ];
      const relative = new Map<string, number[]>(cases.map((c) => [c.name, []]));
      const wall = new Map<string, number[]>(cases.map((c) => [c.name, []]));
      const bodies = new Set<string>();
      async function measure(rounds: number): Promise<void> {
        for (let round = 0; round < rounds; round++) {
          clock.advance(2 * 60 * 60_000);
          const elapsed = new Map<string, number>();
          for (const c of shuffled(cases)) {
            const start = performance.now();
            const answer = await new Browser(server).login(c.uin, c.password);
            const text = await answer.text();
            elapsed.set(c.name, performance.now() - start);
            expect(answer.status, `${c.name}: ${text}`).toBe(401);
            bodies.add(text);
          }
          const roundMedian = median([...elapsed.values()]);
          for (const [name, ms] of elapsed) {
            relative.get(name)!.push(ms / roundMedian);
            wall.get(name)!.push(ms);
          }
        }
      }
      const medians = (samples: Map<string, number[]>): Record<string, number> =>
        Object.fromEntries(
          [...samples].map(([name, values]) => [name, Math.round(median(values) * 1000) / 1000]),
        );
      const spread = (): number => {
        const values = Object.values(medians(relative));
        return Math.max(...values) / Math.min(...values);
      };
      await new Browser(server).login(unknown, 'warm up');
      await measure(TRIES);
      for (let extra = 0; extra < 3 && spread() > 1.1; extra++) await measure(TRIES);
      expect([...bodies]).toEqual([JSON.stringify({ code: 1, msg: 'wrong uin or password', data: {} })]);
      const report = JSON.stringify({ wall_ms: medians(wall), relative: medians(relative) });
      console.log(report);
      expect(spread(), report).toBeLessThanOrEqual(1.1);
    }, 600_000);
  },
  ['sqlite'],
);
