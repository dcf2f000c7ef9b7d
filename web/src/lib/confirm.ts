/**
 * Asking before an act that is hard to undo: one naive-ui confirmation dialog (Cancel beside the act's own
 * button; naive-ui focuses the dialog), the act's success said in a toast when `done` says what to say, and
 * a failure of the act said in an error toast.
 */
import { useI18n } from 'vue-i18n';
import { dialog, message } from '../feedback';
import { describeError } from './errors';

export interface Confirmation<Result = unknown> {
  readonly title: string;
  readonly content: string;
  /** The act's button. */
  readonly confirm: string;
  /** An act that cannot be taken back (deleting): the dialog says so with its error colour. */
  readonly destructive?: boolean;
  /** What happens once confirmed; the dialog waits for it, and an error it throws becomes a toast. */
  readonly act: () => Result;
  /** The success toast once the act is done, from what it answered. */
  readonly done?: (result: Awaited<Result>) => string;
  /** After the dialog has gone, confirmed or not (where focus goes when the row is gone, ...). */
  readonly onAfterLeave?: () => void;
}

/** Must be called in a component's setup; `explain` turns a failure into the toast's text. */
export function useConfirm(
  explain?: (error: unknown) => string,
): <Result>(confirmation: Confirmation<Result>) => void {
  const { t } = useI18n();
  const describe = explain ?? ((error: unknown) => describeError(t, error));
  return (c) => {
    dialog[c.destructive ? 'error' : 'warning']({
      title: c.title,
      content: c.content,
      positiveText: c.confirm,
      negativeText: t('common.cancel'),
      onPositiveClick: async () => {
        try {
          const result = await c.act();
          if (c.done) message.success(c.done(result));
        } catch (error) {
          message.error(describe(error));
        }
      },
      onAfterLeave: c.onAfterLeave,
    });
  };
}
