/** docs/interface.md#resources: an app's emoji is exactly one emoji. */
import { describe, expect, it } from 'vitest';
import { isSingleEmoji } from '../../src/domain/emoji.js';

describe('isSingleEmoji', () => {
  it.each([
    ['a simple emoji', '📚'],
    ['a ZWJ sequence', '👩‍💻'],
    ['a flag', '🇨🇳'],
    ['a keycap', '1️⃣'],
    ['a skin-tone modifier sequence', '👍🏽'],
    ['an emoji with a variation selector', '❤️'],
  ])('accepts %s (%s)', (_name, value) => {
    expect(isSingleEmoji(value)).toBe(true);
  });

  it.each([
    ['two letters', 'ab'],
    ['one letter', 'a'],
    ['a digit', '1'],
    ['two emoji', '📚📚'],
    ['an emoji with text', '📚 Library'],
    ['the empty string', ''],
    ['a CJK character', '书'],
    ['a space', ' '],
  ])('refuses %s (%s)', (_name, value) => {
    expect(isSingleEmoji(value)).toBe(false);
  });
});
