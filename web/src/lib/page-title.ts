/**
 * Every page has its own tab title (WCAG 2.4.2): "<page> · <school>". The route names the page
 * (`meta.titleKey`); a page with steps (sign-in, consent, invalid link) may name its current step.
 */
import { ref } from 'vue';

export interface PageTitle {
  readonly key: string;
  readonly params?: Readonly<Record<string, string>>;
}

/** Set by the current page, overriding its route's title; cleared on each navigation. */
export const pageTitle = ref<PageTitle | undefined>(undefined);

export function setPageTitle(key: string | undefined, params?: Record<string, string>): void {
  pageTitle.value = key === undefined ? undefined : { key, ...(params ? { params } : {}) };
}
