/**
 * Codes and tokens: opaque, ≥ 128 random bits (docs/interface.md#resources), stored only under a key that
 * sorts by issue time.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/domain/crypto.js';
import { credentialKey, newCredential } from '../../src/oauth/credentials.js';

const ISSUED = Date.UTC(2026, 10, 23, 8, 0, 0, 123);

describe('newCredential', () => {
  it('is 51 base64url characters: the issuing millisecond in 6 bytes, then 32 random bytes', () => {
    const credential = newCredential(ISSUED);
    expect(credential).toMatch(/^[A-Za-z0-9_-]{51}$/);
    const bytes = Buffer.from(credential, 'base64url');
    expect(bytes).toHaveLength(38);
    expect(bytes.readUIntBE(0, 6)).toBe(ISSUED);
  });

  it('never repeats, even within one millisecond', () => {
    const credentials = Array.from({ length: 5000 }, () => newCredential(ISSUED));
    expect(new Set(credentials).size).toBe(credentials.length);
    // The random part differs in every byte position across the sample: nothing but the prefix is fixed.
    const randomParts = new Set(credentials.map((c) => c.slice(8)));
    expect(randomParts.size).toBe(credentials.length);
  });
});

describe('credentialKey', () => {
  it('is the time prefix in hex followed by the SHA-256 hex of the whole credential', () => {
    const credential = newCredential(ISSUED);
    const key = credentialKey(credential);
    expect(key).toMatch(/^[0-9a-f]{76}$/);
    expect(key.slice(0, 12)).toBe(ISSUED.toString(16).padStart(12, '0'));
    expect(key.slice(12)).toBe(sha256Hex(credential));
    expect(key).not.toContain(credential);
  });

  it('sorts keys in the order their credentials were issued', () => {
    const times = [ISSUED - 86_400_000, ISSUED - 1, ISSUED, ISSUED + 1, ISSUED + 7_200_000];
    const keys = times.map((t) => credentialKey(newCredential(t)));
    expect([...keys].sort()).toEqual(keys);
  });

  it('stores a credential issued before the time prefix (43 characters) under its bare SHA-256 hex', () => {
    const older = randomBytes(32).toString('base64url');
    expect(credentialKey(older)).toBe(sha256Hex(older));
  });

  it('keys any other presented string by its SHA-256 hex, so it simply matches nothing', () => {
    for (const value of ['', 'x', 'é'.repeat(51), `${'*'.repeat(51)}`, newCredential(ISSUED).slice(1)]) {
      expect(credentialKey(value)).toBe(sha256Hex(value));
    }
  });
});
