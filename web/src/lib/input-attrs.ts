/**
 * Attribute sets for the <input> inside naive-ui's NInput (its `input-props`), so that each kind of field
 * asks the browser and assistive technology for the same things everywhere.
 */
export type InputAttrs = Record<string, string>;

/** A URL: the URL keyboard on phones, no autofill, no spell check. */
export const URL_INPUT: InputAttrs = { inputmode: 'url', autocomplete: 'off', spellcheck: 'false' };

/** A machine word (scopes, service URLs, codes): no autofill, no spell check, no capitalization. */
export const PLAIN_INPUT: InputAttrs = { autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off' };

/** A one-time code typed from a phone app or a sheet: the OS may offer it; shown in capitals. */
export const CODE_INPUT: InputAttrs = {
  autocomplete: 'one-time-code',
  autocapitalize: 'characters',
  spellcheck: 'false',
};

/** aria-invalid from a problem (a message, or false/'' for none). */
export function ariaInvalid(problem: unknown): InputAttrs {
  return { 'aria-invalid': problem ? 'true' : 'false' };
}

/** aria-invalid, and while there is a problem, aria-describedby pointing at the text that says it. */
export function ariaProblem(problem: unknown, feedbackId: string): InputAttrs {
  return problem ? { 'aria-invalid': 'true', 'aria-describedby': feedbackId } : { 'aria-invalid': 'false' };
}
