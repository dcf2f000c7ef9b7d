/**
 * An audit event's `detail` as short sentences in the page's language (docs/interface.md#people-groups-and-audit),
 * instead of `key: value` pairs: "Changed: Name, Group tags." / "已修改：姓名、分组标签。". Lists of UINs (an
 * import, a bulk change, a directory sync) are kept apart, so the page can show a long one collapsed. A key
 * added later without a sentence still shows, as `key: value`.
 */
import { formatDate } from '../i18n';

type Translate = (key: string, named?: Record<string, unknown>) => string;
type HasKey = (key: string) => boolean;

export interface UinList {
  /** What the uins are ("Users", "Added"), in the page's language. */
  readonly label: string;
  readonly uins: readonly number[];
}

export interface AuditDetailText {
  readonly sentences: string[];
  readonly uinLists: UinList[];
}

/** Keys whose value is itself a word the pages translate, and where that word lives. */
const WORD_KEYS: Readonly<Record<string, (value: string) => string>> = {
  user_group: (v) => `groups.${v}`,
  kind: (v) => `userFactors.${v}`,
  second_factor: (v) => `userFactors.${v}`,
};

function isUinList(key: string, value: unknown): value is number[] {
  return (
    (key === 'uins' || key.endsWith('_uins')) &&
    Array.isArray(value) &&
    value.every((item) => typeof item === 'number')
  );
}

/** One value as words: translated where the pages know the word, a date as a date, a list joined. */
function words(t: Translate, te: HasKey, key: string, value: unknown): string {
  const one = (item: unknown): string => {
    const text = String(item);
    // Only plain words are looked up (a URL or a sentence is shown as it is).
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(text)) return text;
    const lookups = [
      WORD_KEYS[key]?.(text),
      key === 'fields' ? `auditText.fields.${text}` : undefined,
      key === 'action' ? `auditText.bulk.${text}` : undefined,
      key === 'amr' ? `auditText.amr.${text}` : undefined,
      `auditText.values.${text}`,
    ];
    const found = lookups.find((path): path is string => path !== undefined && te(path));
    return found ? t(found) : text;
  };
  if (Array.isArray(value)) return value.map(one).join(t('auditText.listSeparator'));
  if (key === 'expires_at' && typeof value === 'string') return formatDate(value);
  if (key === 'expires_at' && value === null) return t('auditText.values.never');
  return one(value);
}

function sentence(t: Translate, te: HasKey, action: string, key: string, value: unknown): string {
  if (typeof value === 'boolean') {
    const flag = `auditText.flags.${key}.${value}`;
    if (te(flag)) return t(flag);
  }
  // The same key means different things in two events.
  const contextual = `auditText.keys.${action}.${key}`;
  const path = te(contextual) ? contextual : `auditText.keys.${key}`;
  const text = words(t, te, key, value);
  return te(path) ? t(path, { value: text }) : `${key}: ${text}`;
}

export function describeAuditDetail(
  t: Translate,
  te: HasKey,
  action: string,
  detail: Readonly<Record<string, unknown>> | null,
): AuditDetailText {
  const sentences: string[] = [];
  const uinLists: UinList[] = [];
  for (const [key, value] of Object.entries(detail ?? {})) {
    if (isUinList(key, value)) {
      if (value.length === 0) continue;
      const label = te(`auditText.uinLists.${key}`) ? t(`auditText.uinLists.${key}`) : key;
      uinLists.push({ label, uins: value });
      continue;
    }
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    sentences.push(sentence(t, te, action, key, value));
  }
  return { sentences, uinLists };
}

/** Up to this many uins are shown inline; a longer list is collapsed behind its count. */
export const SHORT_UIN_LIST = 5;
