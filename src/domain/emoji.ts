/** SPEC §1: an app's emoji is exactly one emoji (one extended grapheme cluster that is an emoji). */
const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const EMOJI = /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|[#*0-9]\uFE0F?\u20E3)/u;

export function isSingleEmoji(value: string): boolean {
  if (value.length === 0 || value.length > 64) return false;
  const graphemes = [...segmenter.segment(value)];
  if (graphemes.length !== 1) return false;
  return EMOJI.test(value);
}
