/**
 * Wire types of the pages' own calls (docs/interface.md#browser-session-api): the school's branding, the
 * app launcher, and why a sign-in link is invalid. Shared by the server and the pages; types only.
 */

/** `GET /v1/branding`: what every page shows in its header and tab title. `null`: not configured. */
export interface BrandingView {
  readonly name: string | null;
  /** The name on the Chinese pages; `null`: `name` in both languages. */
  readonly name_zh: string | null;
  /** A same-origin path or a `data:image/…` URL. */
  readonly logo_url: string | null;
  /** `#rrggbb`. */
  readonly color: string | null;
  /** Whom to ask for help: a sentence, or an http(s)/mailto URL. */
  readonly helpdesk: string | null;
}

/** One tile of the signed-in home page's app launcher (`GET /v1/account/apps`). */
export interface LauncherAppView {
  readonly client_id: string;
  readonly name: string;
  readonly emoji: string;
  /** Where the tile leads: the app's homepage, or the origin of its first redirect URI. */
  readonly homepage_url: string;
}

/**
 * `data.reason` of the 400 code 3 answer (an invalid sign-in link), so the page can say which of the three
 * it is; `data.name` names the app when it exists.
 */
export type InvalidLinkReason = 'unknown_client' | 'disabled_client' | 'unregistered_redirect_uri';

/**
 * Why the end_session_endpoint refused a logout request (RP-Initiated Logout 1.0 §2, §3): the page `#/logout`
 * shows it as `?error=…` instead of signing out or sending the browser anywhere.
 */
export type LogoutRefusal =
  'invalid_id_token_hint' | 'client_mismatch' | 'unregistered_post_logout_redirect_uri';
