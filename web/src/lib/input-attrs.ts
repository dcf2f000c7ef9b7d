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

/**
 * One's own UIN (signing in, #/reset): the digits keyboard, and the name and autocomplete that let a password
 * manager fill it in as the username of the saved password.
 */
export const OWN_UIN_INPUT: InputAttrs = { name: 'uin', autocomplete: 'username', inputmode: 'numeric' };

/** Another person's UIN (an admin adding a user): the digits keyboard, and never the admin's own filled in. */
export const OTHER_UIN_INPUT: InputAttrs = { inputmode: 'numeric', autocomplete: 'off' };
