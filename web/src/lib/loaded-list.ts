/**
 * A list a card loads from the server (my apps, my sessions, the apps I authorized): null until it has
 * come, and what went wrong, said in words, when it could not.
 */
import { ref, type Ref } from 'vue';
import { useI18n } from 'vue-i18n';
import { describeError } from './errors';

export function useLoadedList<T>(
  fetch: () => Promise<T[]>,
  failedPrefix?: string,
): { list: Ref<T[] | null>; failure: Ref<string>; load: () => Promise<void> } {
  const { t } = useI18n();
  const list = ref<T[] | null>(null) as Ref<T[] | null>;
  const failure = ref('');

  async function load(): Promise<void> {
    failure.value = '';
    try {
      list.value = await fetch();
    } catch (error) {
      const described = describeError(t, error);
      failure.value = failedPrefix ? `${failedPrefix} ${described}` : described;
    }
  }

  return { list, failure, load };
}
