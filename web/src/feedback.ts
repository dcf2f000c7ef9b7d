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
  themeOverrides,
}));

export const { message, dialog } = createDiscreteApi(['message', 'dialog'], {
  configProviderProps,
  messageProviderProps: { placement: 'top' },
});
