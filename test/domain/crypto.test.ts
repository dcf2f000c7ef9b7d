/** Random identifiers and secret comparison (docs/interface.md#resources, docs/security.md). */
import { describe, expect, it } from 'vitest';
import { constantTimeEqual, randomClientId, randomToken, sha256Hex } from '../../src/domain/crypto.js';
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
