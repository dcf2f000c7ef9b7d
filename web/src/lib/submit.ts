/**
 * One try of something that can fail (a dialog's form, loading who I am, starting a second-factor setup):
 * `busy` while it runs, and what went wrong, said in words, in `failure`. A new try clears the last failure.
 * `sending` is one reactive object, so a component takes the whole state as one prop (FormDialog).
 */
import { reactive } from 'vue';

export interface Sending {
  busy: boolean;
  failure: string;
}

/** `busyAtFirst`: for a try that starts as the component mounts, so nothing shows before it. */
export function useSubmit(busyAtFirst = false) {
  const sending = reactive<Sending>({ busy: busyAtFirst, failure: '' });

  async function submit(send: () => Promise<unknown>, describe: (error: unknown) => string): Promise<void> {
    sending.busy = true;
    sending.failure = '';
    try {
      await send();
    } catch (error) {
      sending.failure = describe(error);
    } finally {
      sending.busy = false;
    }
  }

  return { sending, submit };
}
