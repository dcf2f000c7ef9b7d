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

/** A user as the admin API shows them: the public view plus the account's state and profile. */
export interface AdminUserView extends UserView {
  readonly disabled: boolean;
  readonly name: string | null;
  readonly email: string | null;
  readonly groups: readonly string[];
  readonly expires_at: string | null;
  readonly last_sign_in_at: string | null;
  /** Sign-in is locked after failed attempts until then (`POST /v1/admin/users/:uin/unlock` ends it). */
  readonly locked_until: string | null;
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
  /** Only members of these groups may use the app; empty: everyone. */
  readonly allowed_groups: readonly string[];
}

/** What the consent page shows about the app asking (`GET /v1/oauth2/app-info`). */
export interface AppInfoView {
  readonly client_id: string;
  readonly name: string;
  readonly emoji: string;
  /** The signed-in user already authorized this app for everything it asks now. */
  readonly consented: boolean;
  /** Present, and false, only when the signed-in user is in none of the app's allowed groups. */
  readonly allowed?: false;
}

/** An app the signed-in user authorized (`GET /v1/account/consents`). */
export interface ConsentView {
  readonly client_id: string;
  readonly name: string;
  readonly emoji: string;
  readonly scope: string | null;
  readonly granted_at: string;
}

/** One event of the audit trail (`GET /v1/admin/audit`, `GET /v1/account/activity`). */
export interface AuditEventView {
  readonly id: string;
  readonly at: string;
  readonly actor_uin: number | null;
  readonly action: string;
  readonly target: string | null;
  readonly ip: string | null;
  readonly user_agent: string | null;
  readonly outcome: string;
  readonly detail: Readonly<Record<string, unknown>> | null;
}
