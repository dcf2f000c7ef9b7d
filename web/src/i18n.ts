/**
 * Languages: English and Simplified Chinese. The choice is remembered in localStorage; the first visit
 * follows `navigator.languages`. Changing it also updates `<html lang>`, the document title and
 * naive-ui's own strings (see `naiveLocale`).
 */
import { computed } from 'vue';
import { createI18n } from 'vue-i18n';
import { createLocale, dateEnUS, dateZhCN, enUS, zhCN } from 'naive-ui';
import en, { type MessageSchema } from './locales/en';
import zhCNMessages from './locales/zh-CN';

export type Locale = 'en' | 'zh-CN';
export const LOCALES: readonly Locale[] = ['en', 'zh-CN'];
const STORAGE_KEY = 'campus-sso.locale';

function storedLocale(): Locale | undefined {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return LOCALES.find((locale) => locale === value);
  } catch {
    return undefined; // storage can be blocked (private mode, policies)
  }
}

/** The first of the browser's languages that we speak; English otherwise. */
export function browserLocale(
  languages: readonly string[] = navigator.languages ?? [navigator.language],
): Locale {
  for (const language of languages) {
    const lower = language.toLowerCase();
    if (lower.startsWith('zh')) return 'zh-CN';
    if (lower.startsWith('en')) return 'en';
  }
  return 'en';
}

export const i18n = createI18n<[MessageSchema], Locale, false>({
  legacy: false,
  locale: storedLocale() ?? browserLocale(),
  fallbackLocale: 'en',
  messages: { en, 'zh-CN': zhCNMessages },
  missingWarn: false,
  fallbackWarn: false,
});

export function currentLocale(): Locale {
  return i18n.global.locale.value;
}

/** `<html lang>`; the tab title follows the language in AppShell (lib/page-title.ts). */
function applyToDocument(locale: Locale): void {
  document.documentElement.lang = locale;
}

export function setLocale(locale: Locale): void {
  i18n.global.locale.value = locale;
  try {
    localStorage.setItem(STORAGE_KEY, locale);
  } catch {
    // not remembered; still switched for this page
  }
  applyToDocument(locale);
}

applyToDocument(currentLocale());

/**
 * naive-ui's component strings follow the page's language, without its default "Please Input" / "请输入"
 * placeholders: an empty field says nothing rather than something generic in a maybe-other language.
 */
const NO_PLACEHOLDERS = {
  Input: { placeholder: '' },
  Select: { placeholder: '' },
  InputNumber: { placeholder: '' },
};
const naiveZhCN = createLocale(NO_PLACEHOLDERS, zhCN);
const naiveEnUS = createLocale(NO_PLACEHOLDERS, enUS);
export const naiveLocale = computed(() => (i18n.global.locale.value === 'zh-CN' ? naiveZhCN : naiveEnUS));
export const naiveDateLocale = computed(() => (i18n.global.locale.value === 'zh-CN' ? dateZhCN : dateEnUS));

/** Dates as the reader expects them, in their own time zone. */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(currentLocale(), { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}
