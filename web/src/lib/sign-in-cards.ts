/**
 * Printable sign-in cards (docs/interface.md#people-groups-and-audit): for each person with a one-time reset
 * code, where to go and a QR code of that address. The QR code comes from `qrcode` (maintained, no
 * dependencies in the browser) as an SVG data URL, so it prints sharp and the page's CSP allows it.
 */
import QRCode from 'qrcode';

export interface SignInCard {
  readonly uin: number;
  readonly name?: string | undefined;
  readonly code: string;
  /** ISO time the code expires. */
  readonly expiresAt: string;
}

/** The page where a code is redeemed, on this server, with the uin filled in. */
export function resetAddress(uin?: number): string {
  const base = `${window.location.origin}${window.location.pathname}#/reset`;
  return uin === undefined ? base : `${base}?uin=${uin}`;
}

export async function qrDataUrl(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}
