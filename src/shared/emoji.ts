/**
 * An app's emoji is exactly one emoji: one extended grapheme cluster that is an emoji
 * (docs/interface.md#resources). Dependency-free: the server and the pages check it the same way.
 */
const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const EMOJI = /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|[#*0-9]\uFE0F?\u20E3)/u;

export function isSingleEmoji(value: string): boolean {
  if (value.length === 0 || value.length > 64) return false;
  if ([...segmenter.segment(value)].length !== 1) return false;
  return EMOJI.test(value);
}
