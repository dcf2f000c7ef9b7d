/**
 * The JSON shapes of users, apps and consents as the API answers them (docs/interface.md#browser-session-api,
 * docs/interface.md#admin-api). The server builds them (src/domain) and the pages read them (web/src/api.ts):
 * one definition, so the two cannot drift apart. Types only.
 */
import type { UserGroup } from './users.js';

/** A user as every JSON answer shows them (`/v1/account/me`, legacy user information). */
export interface UserView {
  readonly uin: number;
  readonly user_group: UserGroup;
  readonly created_at: string;
}

/** A user as the admin API shows them: the public view plus whether the account is disabled. */
export interface AdminUserView extends UserView {
  readonly disabled: boolean;
}

/** The answer to a sign-in (`POST /v1/account/login`). */
export interface SignedInView {
  readonly uin: number;
  readonly user_group: UserGroup;
}

/** An app as the admin API shows it (never its secret or secret hash). */
export interface AppView {
  readonly client_id: string;
  readonly name: string;
  readonly emoji: string;
  readonly redirect_uris: readonly string[];
  readonly created_at: string;
  readonly disabled: boolean;
  readonly allow_refresh_tokens: boolean;
  /** OpenID Connect RP-Initiated Logout 1.0 §3 (docs/interface.md#sessions-and-sign-out). */
  readonly post_logout_redirect_uris: readonly string[];
  /** OpenID Connect Back-Channel Logout 1.0 §2.2, or null. */
  readonly backchannel_logout_uri: string | null;
  /** The last back-channel logout delivery attempt to this app, or null when none was made yet. */
  readonly backchannel_logout_last_attempt: { readonly at: string; readonly result: string } | null;
  /** Back-channel logouts queued for this app and not yet delivered (admin answers only). */
  readonly backchannel_logout_pending?: number;
}

/** A browser session of the signed-in user (`GET /v1/account/sessions`). */
export interface SessionView {
  /** The public session id (the id_token's `sid`), never the cookie. */
  readonly id: string;
  readonly created_at: string;
  readonly last_seen_at: string;
  readonly ip: string | null;
  readonly user_agent: string | null;
  /** Signed in with "This is a shared computer". */
  readonly shared: boolean;
  /** The session of this browser. */
  readonly current: boolean;
}

/** What the consent page shows about the app asking (`GET /v1/oauth2/app-info`). */
export interface AppInfoView {
  readonly client_id: string;
  readonly name: string;
  readonly emoji: string;
  /** The signed-in user already authorized this app for everything it asks now. */
  readonly consented: boolean;
  /**
   * The session is on a shared computer: a remembered consent is not used silently, the user confirms
   * each app (docs/interface.md#sessions-and-sign-out).
   */
  readonly shared_computer: boolean;
}

/** An app the signed-in user authorized (`GET /v1/account/consents`). */
export interface ConsentView {
  readonly client_id: string;
  readonly name: string;
  readonly emoji: string;
  readonly scope: string | null;
  readonly granted_at: string;
}
