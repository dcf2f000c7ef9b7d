/** An app's emoji: the rule is shared with the pages (src/shared/emoji.ts). */
export { isSingleEmoji } from '../shared/emoji.js';
