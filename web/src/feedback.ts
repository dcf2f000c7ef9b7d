/**
 * Toasts and confirmation dialogs for the account and admin pages. naive-ui's "discrete" API mounts its own
 * providers the first time this module is loaded, so their code stays out of the sign-in page's bundle;
 * the language and theme follow the page's.
 */
import { createDiscreteApi, type ConfigProviderProps } from 'naive-ui';
import { computed } from 'vue';
import { naiveDateLocale, naiveLocale } from './i18n';
import { themeOverrides } from './theme';

const configProviderProps = computed<ConfigProviderProps>(() => ({
  locale: naiveLocale.value,
  dateLocale: naiveDateLocale.value,
  themeOverrides: themeOverrides.value,
}));

export const { message, dialog } = createDiscreteApi(['message', 'dialog'], {
  configProviderProps,
  messageProviderProps: { placement: 'top' },
});

/**
 * naive-ui's confirmation dialogs carry `role="dialog"` without a name, and its toasts sit outside every
 * landmark. Both are fixed where they appear: the dialog is named by its own title (WCAG 4.1.2), and the
 * toast container becomes a polite live region (a region of its own, and said when a toast appears).
 */
let nextTitleId = 0;
function labelFeedback(root: ParentNode): void {
  for (const dialogEl of root.querySelectorAll<HTMLElement>(
    '.n-dialog[role="dialog"]:not([aria-labelledby])',
  )) {
    const title = dialogEl.querySelector<HTMLElement>('.n-dialog__title');
    if (!title) continue;
    title.id ||= `confirm-title-${(nextTitleId += 1)}`;
    dialogEl.setAttribute('aria-labelledby', title.id);
    const content = dialogEl.querySelector<HTMLElement>('.n-dialog__content');
    if (content) {
      content.id ||= `${title.id}-content`;
      dialogEl.setAttribute('aria-describedby', content.id);
    }
  }
  for (const container of root.querySelectorAll<HTMLElement>('.n-message-container:not([role])')) {
    container.setAttribute('role', 'status');
    container.setAttribute('aria-live', 'polite');
  }
}
new MutationObserver(() => labelFeedback(document.body)).observe(document.body, {
  childList: true,
  subtree: true,
});
