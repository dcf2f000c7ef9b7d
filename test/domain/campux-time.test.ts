/**
 * Campux (GORM) times → epoch milliseconds (docs/interface.md#resources: created_at in UTC with
 * milliseconds).
 */
import { describe, expect, it } from 'vitest';
import { parseCampuxTime } from '../../src/domain/campux-values.js';

const FALLBACK = 42;
const iso = (value: unknown): string => new Date(parseCampuxTime(value, FALLBACK)).toISOString();

describe('parseCampuxTime', () => {
  it.each([
    ['2024-04-18 08:49:37.275+08:00', '2024-04-18T00:49:37.275Z'],
    ['2024-04-18 08:49:37.275848+08:00', '2024-04-18T00:49:37.275Z'],
    ['2024-04-18 08:49:37+08:00', '2024-04-18T00:49:37.000Z'],
    ['2024-04-18T08:49:37.275+08:00', '2024-04-18T00:49:37.275Z'],
    ['2024-04-18 08:49:37.275 +0800', '2024-04-18T00:49:37.275Z'],
    ['2024-04-18 00:49:37.275Z', '2024-04-18T00:49:37.275Z'],
    ['2024-04-18 08:49:37.275', '2024-04-18T00:49:37.275Z'], // no zone: Campux ran in China Standard Time
  ])('reads %s as %s', (text, expected) => {
    expect(iso(text)).toBe(expected);
  });

  it('reads epoch seconds and epoch milliseconds', () => {
    expect(iso(1713401377)).toBe('2024-04-18T00:49:37.000Z');
    expect(iso(1713401377275)).toBe('2024-04-18T00:49:37.275Z');
  });

  it('falls back for a missing or unreadable time', () => {
    for (const value of [null, undefined, '', 'yesterday', Number.NaN]) {
      expect(parseCampuxTime(value, FALLBACK)).toBe(FALLBACK);
    }
  });
});
