/**
 * Client-side checks, so people see mistakes before sending. The rules are the server's own (src/shared);
 * only their wording lives here, in the locale files.
 */
import {
  type RedirectUriProblem as SharedRedirectUriProblem,
  canonicalRedirectUri,
  redirectUriProblemCode,
} from '../../../src/shared/redirect-uris';
import { isValidUin, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../../src/shared/users';

export { isSingleEmoji } from '../../../src/shared/emoji';
export { MAX_REDIRECT_URIS } from '../../../src/shared/redirect-uris';
export { appNameProblem } from '../../../src/shared/apps';

/** A UIN as typed: digits only (no leading zero), a positive safe integer; undefined when it is not one. */
export function parseUin(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^[1-9]\d{0,15}$/.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return isValidUin(value) ? value : undefined;
}

export function passwordLengthOk(password: string): boolean {
  return password.length >= MIN_PASSWORD_LENGTH && password.length <= MAX_PASSWORD_LENGTH;
}

/** The locale key (under `apps.`) that explains a redirect URI problem. */
export type RedirectUriProblemKey =
  | 'uriTooLong'
  | 'uriWhitespace'
  | 'uriBackslash'
  | 'uriFragment'
  | 'uriNotAbsolute'
  | 'uriCredentials'
  | 'uriNotHttps'
  | 'uriNotCanonical';

export interface RedirectUriProblem {
  readonly key: RedirectUriProblemKey;
  /** For `uriNotCanonical`: the form to write instead. */
  readonly canonical?: string;
}

const PROBLEM_KEYS: Readonly<Record<SharedRedirectUriProblem, RedirectUriProblemKey>> = {
  tooLong: 'uriTooLong',
  whitespace: 'uriWhitespace',
  backslash: 'uriBackslash',
  fragment: 'uriFragment',
  notAbsolute: 'uriNotAbsolute',
  credentials: 'uriCredentials',
  httpNotLoopback: 'uriNotHttps',
  otherScheme: 'uriNotAbsolute',
  notCanonical: 'uriNotCanonical',
};

/** Why `uri` may not be registered, as a locale key (and the form to write instead); undefined when it may. */
export function redirectUriProblemKey(uri: string): RedirectUriProblem | undefined {
  const problem = redirectUriProblemCode(uri);
  if (problem === undefined) return undefined;
  if (problem === 'notCanonical')
    return { key: 'uriNotCanonical', canonical: canonicalRedirectUri(uri) ?? '' };
  return { key: PROBLEM_KEYS[problem] };
}

/** A random password for "reset password" and "add user" (readable characters, no modulo bias). */
export function generatePassword(length = 16): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  const limit = 256 - (256 % alphabet.length);
  let password = '';
  while (password.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length))) {
      if (byte < limit && password.length < length) password += alphabet[byte % alphabet.length];
    }
  }
  return password;
}
