/** Sign-in throttling per account and per address (docs/security.md), on a clock the test moves. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LoginThrottle } from '../../src/domain/login-throttle.js';
import { type OpenedStore, openFreshStore } from '../helpers/databases.js';

describe('LoginThrottle', () => {
  let opened: OpenedStore;
  let now = Date.UTC(2026, 0, 1);
  let throttle: LoginThrottle;

  beforeEach(async () => {
    opened = await openFreshStore('sqlite');
    await opened.store.migrate();
    now = Date.UTC(2026, 0, 1);
    throttle = new LoginThrottle(opened.store, { now: () => now });
  });
  afterEach(async () => {
    await opened.dispose();
  });

  /** Sign-in attempts with a wrong password, each counted and settled as the login route does. */
  const fail = async (times: number, uin = 10001, address = '10.0.0.1'): Promise<void> => {
    for (let i = 0; i < times; i++) {
      const attempt = await throttle.begin(uin, address);
      if (attempt.retryAfter === 0) await throttle.failed(attempt);
    }
  };

  it('lets four failures pass and locks the account at the fifth, for 30 s', async () => {
    await fail(4);
    expect(await throttle.retryAfter(10001, '10.0.0.1')).toBe(0);
    await fail(1);
    expect(await throttle.retryAfter(10001, '10.0.0.1')).toBe(30);
    now += 29_001;
    expect(await throttle.retryAfter(10001, '10.0.0.1')).toBe(1);
    now += 1_000;
    expect(await throttle.retryAfter(10001, '10.0.0.1')).toBe(0);
  });

  it('doubles the lock with each failure after a lock ends, up to 15 minutes', async () => {
    await fail(5);
    expect(await throttle.retryAfter(10001, '10.0.0.1')).toBe(30);
    now += 30_000;
    await fail(1);
    expect(await throttle.retryAfter(10001, '10.0.0.1')).toBe(60);
    for (const lock of [60, 120, 240, 480]) {
      now += lock * 1000;
      await fail(1);
    }
    expect(await throttle.retryAfter(10001, '10.0.0.1')).toBe(15 * 60);
  });

  it('does not count attempts refused during a lock', async () => {
    await fail(5);
    await fail(20);
    now += 30_000;
    await fail(1);
    expect(await throttle.retryAfter(10001, '10.0.0.1')).toBe(60);
  });

  it('locks the account from every address, and not other accounts', async () => {
    await fail(5);
    expect(await throttle.retryAfter(10001, '192.0.2.99')).toBeGreaterThan(0);
    expect(await throttle.retryAfter(10002, '192.0.2.99')).toBe(0);
  });

  it('forgets account failures older than the one-hour window', async () => {
    await fail(4);
    now += 60 * 60_000 + 1;
    await fail(1);
    expect(await throttle.retryAfter(10001, '10.0.0.1')).toBe(0);
  });

  it('clears the account counter at a successful sign-in', async () => {
    await fail(4);
    await throttle.succeeded(await throttle.begin(10001, '10.0.0.1'));
    await fail(1);
    expect(await throttle.retryAfter(10001, '10.0.0.1')).toBe(0);
  });

  it('locks an address after 100 failures across many accounts (one school behind one NAT gets a large budget)', async () => {
    for (let uin = 1; uin <= 99; uin++) await fail(1, uin, '10.9.9.9');
    expect(await throttle.retryAfter(5000, '10.9.9.9')).toBe(0);
    await fail(1, 100, '10.9.9.9');
    expect(await throttle.retryAfter(5000, '10.9.9.9')).toBe(60);
    expect(await throttle.retryAfter(5000, '10.9.9.10')).toBe(0);
  });

  it('gives a successful sign-in its address attempt back', async () => {
    for (let uin = 1; uin <= 99; uin++) await fail(1, uin, '10.9.9.9');
    await throttle.succeeded(await throttle.begin(7000, '10.9.9.9'));
    await fail(1, 100, '10.9.9.9');
    expect(await throttle.retryAfter(5000, '10.9.9.9')).toBe(60);
  });

  it('lets no more than five of many simultaneous attempts through to a password check', async () => {
    const attempts = await Promise.all(Array.from({ length: 30 }, () => throttle.begin(10001, '10.0.0.1')));
    const allowed = attempts.filter((attempt) => attempt.retryAfter === 0);
    expect(allowed).toHaveLength(5);
    await Promise.all(allowed.map((attempt) => throttle.failed(attempt)));
    expect(await throttle.retryAfter(10001, '10.0.0.1')).toBeGreaterThan(0);
  });

  it('checks the next attempt after a lock expires, and a right password then starts the account afresh', async () => {
    await fail(5);
    now += 30_000;
    const attempt = await throttle.begin(10001, '10.0.0.1');
    expect(attempt.retryAfter).toBe(0);
    await throttle.succeeded(attempt);
    expect(await throttle.retryAfter(10001, '10.0.0.1')).toBe(0);
    await fail(4);
    expect(await throttle.retryAfter(10001, '10.0.0.1')).toBe(0);
  });

  it('lets exactly one of many simultaneous attempts after a lock through to a password check', async () => {
    await fail(5);
    now += 30_000;
    const attempts = await Promise.all(Array.from({ length: 30 }, () => throttle.begin(10001, '10.0.0.1')));
    const allowed = attempts.filter((attempt) => attempt.retryAfter === 0);
    expect(allowed).toHaveLength(1);
    await throttle.failed(allowed[0]!);
    // Only the checked attempt counted: the sixth failure locks for one minute, not longer.
    expect(await throttle.retryAfter(10001, '10.0.0.1')).toBe(60);
  });

  it('does not count the surplus of a burst that was refused unchecked', async () => {
    const attempts = await Promise.all(Array.from({ length: 30 }, () => throttle.begin(10001, '10.0.0.1')));
    await Promise.all(attempts.filter((a) => a.retryAfter === 0).map((a) => throttle.failed(a)));
    expect(await throttle.retryAfter(10001, '10.0.0.1')).toBe(30);
    now += 30_000;
    await fail(1);
    expect(await throttle.retryAfter(10001, '10.0.0.1')).toBe(60);
  });

  it('checks the next attempt from an address after its lock expires, one at a time', async () => {
    for (let uin = 1; uin <= 100; uin++) await fail(1, uin, '10.9.9.9');
    expect(await throttle.retryAfter(5000, '10.9.9.9')).toBe(60);
    now += 60_000;
    const attempts = await Promise.all(
      Array.from({ length: 10 }, (_, i) => throttle.begin(6000 + i, '10.9.9.9')),
    );
    const allowed = attempts.filter((attempt) => attempt.retryAfter === 0);
    expect(allowed).toHaveLength(1);
    await throttle.succeeded(allowed[0]!);
    expect(await throttle.retryAfter(5000, '10.9.9.9')).toBe(0);
    expect((await throttle.begin(7000, '10.9.9.9')).retryAfter).toBe(0);
  });
});
