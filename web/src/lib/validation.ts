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

export type RedirectUriProblem = 'uriTooLong' | 'uriFragment' | 'uriNotAbsolute' | 'uriNotHttps';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** SPEC §1 / RFC 9700 §2.1: absolute; https, or http only for loopback hosts; no fragment. */
export function redirectUriProblem(uri: string): RedirectUriProblem | undefined {
  if (uri.length > 2000) return 'uriTooLong';
  if (uri.includes('#')) return 'uriFragment';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'uriNotAbsolute';
  }
  if (url.protocol === 'https:') return undefined;
  if (
    url.protocol === 'http:' &&
    (LOOPBACK_HOSTS.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname))
  ) {
    return undefined;
  }
  return url.protocol === 'http:' ? 'uriNotHttps' : 'uriNotAbsolute';
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
