/** Client-side checks that mirror the server's (src/domain), so people see mistakes before sending. */

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;
export const MAX_REDIRECT_URIS = 10;

/** A UIN as typed: digits only (no leading zero), a positive safe integer; undefined when it is not one. */
export function parseUin(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^[1-9]\d{0,15}$/.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

export function passwordLengthOk(password: string): boolean {
  return password.length >= PASSWORD_MIN && password.length <= PASSWORD_MAX;
}

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

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
// eslint-disable-next-line no-control-regex
const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/u;

/**
 * The server's rules (src/domain/redirect-uris.ts, RFC 9700 §2.1): absolute; https, or http only for loopback
 * hosts; no fragment, credentials, backslash or whitespace; and written in its canonical form (WHATWG URL).
 */
export function redirectUriProblem(uri: string): RedirectUriProblem | undefined {
  if (uri.length > 2000) return { key: 'uriTooLong' };
  if (WHITESPACE_OR_CONTROL.test(uri)) return { key: 'uriWhitespace' };
  if (uri.includes('\\')) return { key: 'uriBackslash' };
  if (uri.includes('#')) return { key: 'uriFragment' };
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { key: 'uriNotAbsolute' };
  }
  if (url.username !== '' || url.password !== '') return { key: 'uriCredentials' };
  if (url.protocol === 'http:') {
    if (!LOOPBACK_HOSTS.has(url.hostname) && !/^127\.\d+\.\d+\.\d+$/.test(url.hostname)) {
      return { key: 'uriNotHttps' };
    }
  } else if (url.protocol !== 'https:') {
    return { key: 'uriNotAbsolute' };
  }
  if (url.href !== uri) return { key: 'uriNotCanonical', canonical: url.href };
  return undefined;
}

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const EMOJI = /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|[#*0-9]\uFE0F?\u20E3)/u;

/** SPEC §1: exactly one emoji (one grapheme cluster that is an emoji). */
export function isSingleEmoji(value: string): boolean {
  if (value.length === 0 || value.length > 64) return false;
  if ([...segmenter.segment(value)].length !== 1) return false;
  return EMOJI.test(value);
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
