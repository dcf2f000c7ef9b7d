/**
 * One polite live region for the whole page (rendered by AppShell): a message said once to screen readers,
 * for things that change without moving focus — a lock that starts, a list that was updated.
 */
import { nextTick, ref } from 'vue';

export const announcement = ref('');

export async function announce(text: string): Promise<void> {
  // Clearing first makes the same sentence said again when it repeats.
  announcement.value = '';
  await nextTick();
  announcement.value = text;
}
