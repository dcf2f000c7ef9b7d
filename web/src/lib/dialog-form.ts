/**
 * What every form dialog (add a user, add or edit an app, reset a password, edit a profile) keeps: whether
 * Save has been pressed (a field's problem shows from then on), the try in flight and its failure
 * (`useSubmit`), and a fresh start each time the dialog opens. FormDialog takes the `form` half.
 */
import { ref, watch, type Ref } from 'vue';
import { useI18n } from 'vue-i18n';
import { describeError } from './errors';
import { focusFirstInvalid } from './focus';
import { useSubmit, type Sending } from './submit';

/**
 * What FormDialog needs: whether it is open and how it closes, the try's state, and what its Save button does
 * with the dialog's <form>.
 */
export interface DialogForm {
  readonly open: boolean;
  readonly close: () => void;
  readonly sending: Sending;
  readonly save: (formEl: HTMLFormElement | null) => Promise<void>;
}

export interface DialogFormOptions<T> {
  /**
   * What the dialog is open for (the user it edits; `true` for a dialog about nothing in particular), false
   * or null while it is closed. Each opening calls `reset` with it, and clears the problems and the failure.
   */
  readonly openFor: () => T | false | null;
  /** Closes the dialog (Cancel, Escape, the close button): makes `openFor` false or null. */
  readonly close: () => void;
  readonly reset: (subject: T) => void;
  /** False while a field has a problem: Save then sends nothing. */
  readonly valid: () => boolean;
  /** A Save refused for a problem focuses the first field marked invalid (its error is then read out). */
  readonly focusInvalid?: boolean;
  readonly send: (subject: T) => Promise<unknown>;
  /** Says in words why `send` failed; `describeError` unless the dialog knows better. */
  readonly describe?: (error: unknown) => string;
}

export function useDialogForm<T>(options: DialogFormOptions<T>): {
  submitted: Ref<boolean>;
  form: DialogForm;
} {
  const { t } = useI18n();
  const submitted = ref(false);
  const { sending, submit } = useSubmit();
  const describe = options.describe ?? ((error: unknown) => describeError(t, error));

  watch(
    options.openFor,
    (subject) => {
      if (!subject) return;
      options.reset(subject);
      submitted.value = false;
      sending.failure = '';
    },
    { immediate: true },
  );

  async function save(formEl: HTMLFormElement | null): Promise<void> {
    submitted.value = true;
    sending.failure = '';
    const subject = options.openFor();
    if (subject && options.valid()) await submit(() => options.send(subject), describe);
    else if (options.focusInvalid) await focusFirstInvalid(formEl);
  }

  const form: DialogForm = {
    get open() {
      return Boolean(options.openFor());
    },
    close: options.close,
    sending,
    save,
  };
  return { submitted, form };
}
