/**
 * The shape of a TOTP code (RFC 6238 with 6 digits, docs/interface.md#second-factor): one pattern for the
 * route schemas, the domain check and the page.
 */
export const TOTP_CODE_PATTERN = '^[0-9]{6}$';

const TOTP_CODE = new RegExp(TOTP_CODE_PATTERN);

export function isTotpCode(code: string): boolean {
  return TOTP_CODE.test(code);
}
