/**
 * The school's own name, logo, colour and helpdesk (`GET /v1/branding`, set by the BRAND_* and HELPDESK
 * environment variables). Asked once per page load; until it answers, and when nothing is configured, the
 * pages stay neutral (the locale's "Campus sign-in" and the default blue).
 */
import { computed, ref } from 'vue';
import { api, type BrandingView } from './api';
import { i18n } from './i18n';

const DEFAULT_COLOR = '#1f5f8b';

export const branding = ref<BrandingView>({
  name: null,
  name_zh: null,
  logo_url: null,
  color: null,
  helpdesk: null,
});

/**
 * The school's name in the page's language (BRAND_NAME_ZH on the Chinese pages, else BRAND_NAME), or the
 * locale's neutral "Campus sign-in": every page says this, never the software's own name.
 */
export const siteName = computed(() => {
  const zh = i18n.global.locale.value === 'zh-CN' ? branding.value.name_zh : null;
  return zh ?? branding.value.name ?? i18n.global.t('app.title');
});

/** The primary colour, configured or default. */
export const brandColor = computed(() => branding.value.color ?? DEFAULT_COLOR);

/** `#rrggbb` mixed with white (amount > 0) or black (amount < 0). */
export function shade(hex: string, amount: number): string {
  const target = amount > 0 ? 255 : 0;
  const weight = Math.abs(amount);
  const channels = [1, 3, 5].map((i) => {
    const value = Number.parseInt(hex.slice(i, i + 2), 16);
    return Math.round(value + (target - value) * weight)
      .toString(16)
      .padStart(2, '0');
  });
  return `#${channels.join('')}`;
}

/** Whom to ask, as a link when it is one. */
export const helpdesk = computed(() => {
  const text = branding.value.helpdesk;
  if (!text) return undefined;
  const isLink = /^(https?:\/\/|mailto:)/i.test(text);
  return {
    text: isLink ? text.replace(/^mailto:/i, '').replace(/^https?:\/\//i, '') : text,
    href: isLink ? text : undefined,
  };
});

function applyColor(color: string): void {
  const style = document.documentElement.style;
  style.setProperty('--brand', color);
  style.setProperty('--brand-hover', shade(color, 0.12));
  style.setProperty('--brand-pressed', shade(color, -0.2));
  style.setProperty('--brand-tint', shade(color, 0.92));
}

/** Asks the server once; a failure keeps the neutral look (the pages work without branding). */
export async function loadBranding(): Promise<void> {
  try {
    branding.value = await api.branding();
  } catch {
    // neutral look
  }
  applyColor(brandColor.value);
}

applyColor(DEFAULT_COLOR);
