/** Random identifiers and secret comparison (docs/interface.md#resources, docs/security.md). */
import { describe, expect, it } from 'vitest';
import {
  constantTimeEqual,
  fillRandom,
  randomClientId,
  randomToken,
  sha256Hex,
} from '../../src/domain/crypto.js';
import { newClientSecret } from '../../src/domain/apps.js';

describe('randomClientId', () => {
  it('is 16 characters of [A-Za-z0-9]', () => {
    for (let i = 0; i < 200; i++) expect(randomClientId()).toMatch(/^[A-Za-z0-9]{16}$/);
  });

  it('draws every character of the alphabet and never repeats an id', () => {
    const ids = Array.from({ length: 2000 }, randomClientId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.join('')).size).toBe(62);
  });
});

describe('randomToken', () => {
  it('carries 32 random bytes as 43 base64url characters by default (≥ 128 bits)', () => {
    const token = randomToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(randomToken()).not.toBe(token);
  });

  it('gives a client secret of at least 32 bytes', () => {
    expect(Buffer.from(newClientSecret(), 'base64url').length).toBeGreaterThanOrEqual(32);
  });
});

describe('fillRandom', () => {
  it('writes exactly the bytes asked for, at the offset asked for', () => {
    const target = Buffer.alloc(40, 0xaa);
    fillRandom(target, 6, 32);
    expect(target.subarray(0, 6).every((byte) => byte === 0xaa)).toBe(true);
    expect(target.subarray(38).every((byte) => byte === 0xaa)).toBe(true);
    // 32 bytes that are all 0xaa (or all zero, a pool byte handed out twice after wiping) would be a bug.
    expect(new Set(target.subarray(6, 38)).size).toBeGreaterThan(8);
  });

  it('never hands out the same bytes twice, across many refills of its pool', () => {
    // 100,000 × 32 bytes = 3.2 MB: about 780 refills of the 4 KiB pool.
    const seen = new Set<string>();
    const chunk = Buffer.alloc(32);
    for (let i = 0; i < 100_000; i++) {
      fillRandom(chunk, 0, 32);
      seen.add(chunk.toString('hex'));
    }
    expect(seen.size).toBe(100_000);
  });

  it('takes requests that straddle the end of its pool, and refuses more than a pool holds', () => {
    const sizes = [1, 7, 1000, 4096, 3, 4095];
    for (const size of sizes) {
      const target = Buffer.alloc(size);
      fillRandom(target, 0, size);
      if (size >= 16) expect(target.every((byte) => byte === 0)).toBe(false);
    }
    expect(() => fillRandom(Buffer.alloc(4097), 0, 4097)).toThrow(RangeError);
  });

  it('spreads its bytes evenly over 0–255 (a frequency check over 1 MiB)', () => {
    const counts = new Array<number>(256).fill(0);
    const chunk = Buffer.alloc(4096);
    for (let i = 0; i < 256; i++) {
      fillRandom(chunk, 0, chunk.length);
      for (const byte of chunk) counts[byte]! += 1;
    }
    // 4,096 expected per value; a standard deviation of 64, so ±640 is ten of them.
    for (const count of counts) expect(Math.abs(count - 4096)).toBeLessThan(640);
  });
});

describe('sha256Hex', () => {
  it('is the SHA-256 hex digest of the UTF-8 text', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('é')).toBe(sha256Hex('\u00e9'));
  });
});

describe('constantTimeEqual', () => {
  it('answers true for equal strings', () => {
    expect(constantTimeEqual('secret', 'secret')).toBe(true);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('密码', '密码')).toBe(true);
  });

  it('answers false for different strings of the same length', () => {
    expect(constantTimeEqual('secret', 'secreT')).toBe(false);
    expect(constantTimeEqual('a'.repeat(64), `${'a'.repeat(63)}b`)).toBe(false);
  });

  it('answers false, without throwing, for strings of different lengths', () => {
    expect(constantTimeEqual('secret', 'secret!')).toBe(false);
    expect(constantTimeEqual('', 'x')).toBe(false);
  });

  it('compares bytes, not UTF-16 units: strings of equal length but different byte length differ', () => {
    expect(constantTimeEqual('é', 'e')).toBe(false);
  });
});
