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
  /** Shown to every signed-in user in the home page's app launcher. */
  readonly listed: boolean;
  /** Where its launcher tile leads; null: the origin of its first redirect URI. */
  readonly homepage_url: string | null;
}

/** What the consent page shows about the app asking (`GET /v1/oauth2/app-info`). */
export interface AppInfoView {
  readonly client_id: string;
  readonly name: string;
  readonly emoji: string;
  /** The signed-in user already authorized this app for everything it asks now. */
  readonly consented: boolean;
  /** Present when the app asks for `offline_access` and may have refresh tokens: how long it stays signed in. */
  readonly stays_signed_in_days?: number;
}

/** An app the signed-in user authorized (`GET /v1/account/consents`). */
export interface ConsentView {
  readonly client_id: string;
  readonly name: string;
  readonly emoji: string;
  readonly scope: string | null;
  readonly granted_at: string;
}
