/** docs/interface.md#the-envelope: each refusal of the password policy has one stable reason code. */
import { describe, expect, it } from 'vitest';
import { passwordProblem, passwordRefusal } from '../../src/domain/passwords.js';

describe('passwordRefusal', () => {
  it.each([
    ['1234567', undefined, 'too_short'],
    ['x'.repeat(257), undefined, 'too_long'],
    ['my uin is 4000123 ok', 4_000_123, 'contains_uin'],
    ['password', undefined, 'too_common'],
    ['iloveyou', undefined, 'too_common'],
    ['aaaaaaaaaaaa', undefined, 'guessable'],
    ['abcdefghijk', undefined, 'guessable'],
  ])('refuses %j (uin %s) with reason %s', (password, uin, reason) => {
    expect(passwordRefusal(password, uin)?.reason).toBe(reason);
  });

  it('accepts an uncommon password with no reason', () => {
    expect(passwordRefusal('zebra lantern quietly', 4_000_123)).toBeUndefined();
  });

  it('keeps the English sentence of passwordProblem as the message', () => {
    for (const password of ['1234567', 'password', 'aaaaaaaaaaaa']) {
      expect(passwordRefusal(password)?.message).toBe(passwordProblem(password));
    }
  });
});
