/**
 * The Disable/Enable action of an admin table's row (an app, a user): disabling takes effect at once (the
 * app's tokens, the person's sign-ins stop working), so it is confirmed first; enabling is not. A toast says
 * what was done, or why it failed.
 */
import { useI18n } from 'vue-i18n';
import { message } from '../feedback';
import { useConfirm } from './confirm';
import { describeError } from './errors';

export interface DisableToggle<T> {
  /** Sends the new state; answers the changed row. */
  readonly update: (row: T, disabled: boolean) => Promise<T>;
  /** Puts the changed row into the table. */
  readonly replace: (row: T) => void;
  /** The confirmation's title and text before disabling. */
  readonly ask: (row: T) => { title: string; content: string };
  /** The toast once done. */
  readonly done: (row: T, disabled: boolean) => string;
  /** Turns a failure into the toast's text (default: describeError). */
  readonly explain?: (error: unknown) => string;
}

/** Must be called in a component's setup; answers the row action. */
export function useDisableToggle<T extends { disabled: boolean }>(
  toggle: DisableToggle<T>,
): (row: T) => void {
  const { t } = useI18n();
  const explain = toggle.explain ?? ((error: unknown) => describeError(t, error));
  const confirmAct = useConfirm(explain);

  async function setDisabled(row: T, disabled: boolean): Promise<void> {
    try {
      toggle.replace(await toggle.update(row, disabled));
      message.success(toggle.done(row, disabled));
    } catch (error) {
      message.error(explain(error));
    }
  }

  return (row) => {
    if (row.disabled) {
      void setDisabled(row, false);
      return;
    }
    confirmAct({ ...toggle.ask(row), confirm: t('common.disable'), act: () => setDisabled(row, true) });
  };
}
