/**
 * The school's own name, logo, colour and helpdesk (docs/interface.md#configuration, "Branding"). Read by
 * `loadConfig` with the rest of the configuration; the pages get them from `GET /v1/branding`.
 */
import { extname } from 'node:path';

export interface BrandingConfig {
  /** Shown in every page header and tab title; undefined: the pages' own neutral "Campus sign-in". */
  readonly name: string | undefined;
  /** The name on the Chinese pages (BRAND_NAME_ZH); undefined: `name` in both languages. */
  readonly nameZh: string | undefined;
  /**
   * The logo as the pages load it: a same-origin path (`/…`) or a `data:image/…` URL, because the pages'
   * Content-Security-Policy allows images only from `'self'` and `data:`.
   */
  readonly logoUrl: string | undefined;
  /** A logo file served at `GET /v1/branding/logo` (which then is `logoUrl`). */
  readonly logoFile: string | undefined;
  /** The primary colour `#rrggbb`, dark enough for white text and for links on white (≥ 4.5:1). */
  readonly color: string | undefined;
  /** Whom to ask for help: a sentence, or an http(s)/mailto URL the pages show as a link. */
  readonly helpdesk: string | undefined;
}

export const LOGO_PATH = '/v1/branding/logo';

/** Logo file types and the content type they are served with. */
export const LOGO_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
};

type Env = Readonly<Record<string, string | undefined>>;

/** A bad branding value; `loadConfig` reports it as its ConfigError. */
export class BrandingConfigError extends Error {
  override readonly name = 'BrandingConfigError';
}

function fail(message: string): never {
  throw new BrandingConfigError(message);
}

function text(env: Env, name: string, max: number): string | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  if ([...raw].length > max) fail(`${name} must be at most ${max} characters`);
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(raw)) fail(`${name} must not contain control characters`);
  return raw;
}

/** WCAG 2.x relative luminance of `#rrggbb`. */
function luminance(hex: string): number {
  const channels = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255);
  const [r = 0, g = 0, b = 0] = channels.map((c) =>
    c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4,
  );
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2.x contrast ratio of `#rrggbb` against white. */
export function contrastWithWhite(hex: string): number {
  return 1.05 / (luminance(hex) + 0.05);
}

function readColor(env: Env): string | undefined {
  const raw = env.BRAND_COLOR?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!/^#[0-9a-fA-F]{6}$/.test(raw)) fail(`BRAND_COLOR must be a colour #rrggbb, got "${raw}"`);
  const ratio = contrastWithWhite(raw);
  // WCAG 1.4.3: white button text on it, and links in it on white, need 4.5:1.
  if (ratio < 4.5) {
    fail(`BRAND_COLOR ${raw} is too light: ${ratio.toFixed(2)}:1 against white, at least 4.5:1 is needed`);
  }
  return raw.toLowerCase();
}

function readLogo(env: Env): Pick<BrandingConfig, 'logoUrl' | 'logoFile'> {
  const url = env.BRAND_LOGO_URL?.trim() || undefined;
  const file = env.BRAND_LOGO_FILE?.trim() || undefined;
  if (url && file) fail('set BRAND_LOGO_URL or BRAND_LOGO_FILE, not both');
  if (file) {
    if (!LOGO_TYPES[extname(file).toLowerCase()]) {
      fail(`BRAND_LOGO_FILE must be a ${Object.keys(LOGO_TYPES).join(', ')} file, got "${file}"`);
    }
    return { logoUrl: LOGO_PATH, logoFile: file };
  }
  if (url === undefined) return { logoUrl: undefined, logoFile: undefined };
  const samePath = url.startsWith('/') && !url.startsWith('//') && !url.includes('\\');
  const dataImage = /^data:image\/(png|jpeg|gif|webp|svg\+xml)[;,]/i.test(url);
  if (!samePath && !dataImage) {
    fail(
      'BRAND_LOGO_URL must be a path on this server (/logo.png) or a data:image/… URL (the pages load no other host)',
    );
  }
  if (url.length > 100_000) fail('BRAND_LOGO_URL must be at most 100000 characters');
  return { logoUrl: url, logoFile: undefined };
}

function readHelpdesk(env: Env): string | undefined {
  return text(env, 'HELPDESK', 200);
}

export function readBranding(env: Env): BrandingConfig {
  return {
    name: text(env, 'BRAND_NAME', 64),
    nameZh: text(env, 'BRAND_NAME_ZH', 64),
    ...readLogo(env),
    color: readColor(env),
    helpdesk: readHelpdesk(env),
  };
}
