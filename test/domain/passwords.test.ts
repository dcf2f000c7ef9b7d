/**
 * Passwords (docs/interface.md#resources): argon2id only; Campux's hashes verify and are re-hashed at the
 * next sign-in.
 */
import { hash } from '@node-rs/argon2';
import { describe, expect, it } from 'vitest';
import {
  hashPassword,
  isArgon2idHash,
  needsRehash,
  passwordProblem,
  verifyPassword,
} from '../../src/domain/passwords.js';

describe('hashPassword / verifyPassword', () => {
  it('hashes with argon2id in PHC form, salted, and verifies only the right password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword(a, 'correct horse battery')).toBe(true);
    expect(await verifyPassword(a, 'correct horse batterY')).toBe(false);
    expect(needsRehash(a)).toBe(false);
  });

  it("verifies a hash made with Campux's parameters (m=65536,t=1,p=2) and marks it for re-hashing", async () => {
    const campux = await hash('old-password', { memoryCost: 65536, timeCost: 1, parallelism: 2 });
    expect(isArgon2idHash(campux)).toBe(true);
    expect(await verifyPassword(campux, 'old-password')).toBe(true);
    expect(needsRehash(campux)).toBe(true);
  });

  it('answers false, never throws, for a malformed stored hash', async () => {
    for (const stored of [
      '',
      'plaintext',
      '$argon2id$v=19$m=1,t=1,p=1$',
      '!campux-import: password must be reset',
    ]) {
      await expect(verifyPassword(stored, 'anything')).resolves.toBe(false);
    }
  });
});

describe('isArgon2idHash', () => {
  it('refuses other algorithms and non-PHC text', () => {
    expect(isArgon2idHash('$argon2i$v=19$m=65536,t=1,p=2$c2FsdHNhbHQ$aGFzaGhhc2g')).toBe(false);
    expect(isArgon2idHash('$2b$10$abcdefghijklmnopqrstuv')).toBe(false);
    expect(isArgon2idHash('5f4dcc3b5aa765d61d8327deb882cf99')).toBe(false);
  });
});

describe('passwordProblem', () => {
  it('accepts 8 to 256 characters', () => {
    expect(passwordProblem('8 chars!')).toBeUndefined();
    expect(passwordProblem('x'.repeat(256))).toBeUndefined();
  });

  it('refuses fewer than 8 and more than 256 characters, saying so', () => {
    expect(passwordProblem('1234567')).toBe('password must be at least 8 characters');
    expect(passwordProblem('x'.repeat(257))).toBe('password must be at most 256 characters');
  });

  it.each([
    '12345678',
    'password',
    'qwertyui',
    '        ',
    'PASSWORD',
    'iloveyou',
    'aaaaaaaa',
    'abcdefgh',
    '1q2w3e4r',
  ])('refuses %j: among the 10,000 most common passwords or as easy to guess', (password) => {
    expect(passwordProblem(password)).toMatch(/^password is too common/);
  });

  it('refuses a password containing the uin it is for', () => {
    expect(passwordProblem('my uin is 4000123 ok', 4_000_123)).toBe('password must not contain the uin');
    expect(passwordProblem('my uin is 4000123 ok', 4_000_124)).toBeUndefined();
  });

  it('refuses every password of 8 or more characters among the first 10,000 of the common list', async () => {
    const { dictionary } = await import('@zxcvbn-ts/language-common');
    const common = dictionary['passwords-common'];
    const inside = common.slice(0, 10_000).filter((p) => p.length >= 8);
    expect(inside.every((p) => passwordProblem(p) !== undefined)).toBe(true);
    expect(common.length).toBeGreaterThan(10_000);
  });
});
