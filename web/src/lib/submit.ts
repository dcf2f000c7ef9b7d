/** A form's sending: `saving` while it runs, and what went wrong, said in words, in `failure`. */
import { ref } from 'vue';

export function useSubmit() {
  const saving = ref(false);
  const failure = ref('');

  async function submit(send: () => Promise<void>, describe: (error: unknown) => string): Promise<void> {
    saving.value = true;
    try {
      await send();
    } catch (error) {
      failure.value = describe(error);
    } finally {
      saving.value = false;
    }
  }

  return { saving, failure, submit };
}
