/**
 * docs/security.md: a refused sign-in verifies a dummy hash with the previous system's argon2id parameters
 * (64 MiB, two lanes) only while some account still has such a hash; without one, every refusal spares it
 * alike. Counted with campus_sso_password_verifications_total on /metrics (docs/operations.md), over real
 * sign-ins against the real server and database.
 */
import { beforeAll, expect, it } from 'vitest';
import { type DatabaseSuiteOptions, describeOnDatabases, insertImportedUser } from '../helpers/fixture.js';
import { Browser } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';

const PASSWORD = 'the right password';
const TODAY = 'm=19456,t=2,p=1';
const PREVIOUS = 'm=65536,t=1,p=2';

type Counts = Record<string, number>;

/** The verification counter's samples, by `parameters/hash`. */
async function verifications(server: TestServer): Promise<Counts> {
  const text = await (await server.fetch('/metrics')).text();
  const counts: Counts = {};
  for (const [, parameters, hashKind, value] of text.matchAll(
    /^campus_sso_password_verifications_total\{parameters="([^"]+)",hash="([^"]+)"\} (\d+)$/gm,
  )) {
    counts[`${parameters}/${hashKind}`] = Number(value);
  }
  return counts;
}

/** What one sign-in attempt added to each sample (samples that did not move are left out). */
async function added(server: TestServer, attempt: () => Promise<Response>, status: number): Promise<Counts> {
  const before = await verifications(server);
  const answer = await attempt();
  expect(answer.status, await answer.text()).toBe(status);
  const after = await verifications(server);
  return Object.fromEntries(
    Object.entries(after)
      .map(([key, value]) => [key, value - (before[key] ?? 0)] as const)
      .filter(([, delta]) => delta !== 0),
  );
}

const SUITE: DatabaseSuiteOptions = { transport: 'inject', manualClock: Date.UTC(2026, 0, 1) };

describeOnDatabases('sign-in refusals and imported hashes', SUITE, ({ server, clock }) => {
  const current = 5_000_000_101;
  const imported = 5_000_000_102;
  const unknown = 5_000_000_103;
  const login = (uin: number, password: string) => () => new Browser(server).login(uin, password);

  beforeAll(async () => {
    await server.ctx.users.create(current, PASSWORD, 'user');
  }, 60_000);

  it('lists the counter with every known parameter set on /metrics', async () => {
    const text = await (await server.fetch('/metrics')).text();
    expect(text).toMatch(/^# TYPE campus_sso_password_verifications_total counter$/m);
    expect(Object.keys(await verifications(server)).sort()).toEqual(
      [`${PREVIOUS}/dummy`, `${PREVIOUS}/stored`, `${TODAY}/dummy`, `${TODAY}/stored`, 'other/stored'].sort(),
    );
  });

  it('spares the previous system’s dummy while no account has such a hash', async () => {
    expect(await server.ctx.store.users.hasPreviousSystemHashes()).toBe(false);
    expect(await added(server, login(unknown, 'a wrong guess'), 401)).toEqual({ [`${TODAY}/dummy`]: 1 });
    expect(await added(server, login(current, 'a wrong guess'), 401)).toEqual({ [`${TODAY}/stored`]: 1 });
  });

  it('verifies it on every refusal while one is left, and stops once its owner signed in (re-hashed)', async () => {
    await insertImportedUser(server, imported, PASSWORD, clock.now());
    expect(await server.ctx.store.users.hasPreviousSystemHashes()).toBe(true);
    clock.advance(2 * 60 * 60_000); // a fresh throttle window
    expect(await added(server, login(unknown, 'a wrong guess'), 401)).toEqual({
      [`${TODAY}/dummy`]: 1,
      [`${PREVIOUS}/dummy`]: 1,
    });
    expect(await added(server, login(current, 'a wrong guess'), 401)).toEqual({
      [`${TODAY}/stored`]: 1,
      [`${PREVIOUS}/dummy`]: 1,
    });
    expect(await added(server, login(imported, 'a wrong guess'), 401)).toEqual({
      [`${TODAY}/dummy`]: 1,
      [`${PREVIOUS}/stored`]: 1,
    });

    // The right password: accepted, and the hash re-made with today's parameters.
    expect(await added(server, login(imported, PASSWORD), 200)).toEqual({
      [`${TODAY}/dummy`]: 1,
      [`${PREVIOUS}/stored`]: 1,
    });
    expect(await server.ctx.store.users.hasPreviousSystemHashes()).toBe(false);
    clock.advance(2 * 60 * 60_000);
    expect(await added(server, login(unknown, 'a wrong guess'), 401)).toEqual({ [`${TODAY}/dummy`]: 1 });
  });
});
