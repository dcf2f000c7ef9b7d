/** The DataLoader-style batcher behind PostgreSQL's hot look-ups and redemptions. */
import { describe, expect, it } from 'vitest';
import { TurnBatcher } from '../../src/storage/turn-batcher.js';

/** A loadMany that records each call's keys and answers each key doubled. */
function recorder(fail?: (keys: readonly number[]) => boolean) {
  const calls: number[][] = [];
  const loadMany = async (keys: readonly number[]): Promise<number[]> => {
    calls.push([...keys]);
    if (fail?.(keys)) throw new Error(`failed: ${keys.join(',')}`);
    return keys.map((key) => key * 2);
  };
  return { calls, loadMany };
}

describe('TurnBatcher', () => {
  it('answers the loads of one turn with one call, each load its own value', async () => {
    const { calls, loadMany } = recorder();
    const batcher = new TurnBatcher(loadMany);
    expect(await Promise.all([1, 2, 3, 2].map((key) => batcher.load(key)))).toEqual([2, 4, 6, 4]);
    expect(calls).toEqual([[1, 2, 3, 2]]);
  });

  it('gives a later turn its own call', async () => {
    const { calls, loadMany } = recorder();
    const batcher = new TurnBatcher(loadMany);
    expect(await batcher.load(1)).toBe(2);
    expect(await batcher.load(2)).toBe(4);
    expect(calls).toEqual([[1], [2]]);
  });

  it('splits a turn larger than maxBatch', async () => {
    const { calls, loadMany } = recorder();
    const batcher = new TurnBatcher(loadMany, { maxBatch: 2 });
    expect(await Promise.all([1, 2, 3, 4, 5].map((key) => batcher.load(key)))).toEqual([2, 4, 6, 8, 10]);
    expect(calls).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('never puts two keys with the same identity into one call, keeping their order', async () => {
    const { calls, loadMany } = recorder();
    const batcher = new TurnBatcher(loadMany, { identity: (key) => String(key) });
    expect(await Promise.all([7, 8, 7, 7].map((key) => batcher.load(key)))).toEqual([14, 16, 14, 14]);
    expect(calls).toEqual([[7, 8], [7], [7]]);
  });

  it('lets one failing key fail alone: the others are tried again one by one, in order', async () => {
    const { calls, loadMany } = recorder((keys) => keys.includes(13));
    const batcher = new TurnBatcher(loadMany, { retryAlone: () => true });
    const outcomes = await Promise.allSettled([1, 13, 3].map((key) => batcher.load(key)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: 2 });
    expect(calls).toEqual([[1, 13, 3], [1], [13], [3]]);
  });

  it("fails the whole batch at once when the failure is not one key's (the database is down)", async () => {
    const { calls, loadMany } = recorder(() => true);
    const batcher = new TurnBatcher(loadMany, {
      retryAlone: (error) => String(error).includes('constraint'),
    });
    const outcomes = await Promise.allSettled([1, 2, 3].map((key) => batcher.load(key)));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(calls).toEqual([[1, 2, 3]]);
  });
});
