/**
 * The JSON shapes of users, apps and consents as the API answers them (docs/interface.md#browser-session-api,
 * docs/interface.md#admin-api). The server builds them (src/domain) and the pages read them (web/src/api/):
 * one definition, so the two cannot drift apart. Types only.
 */
import type { RoleGrant } from './roles.js';
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
  /** Where the password lives: `local` (here) or `ldap` (the school's directory). */
  readonly source: 'local' | 'ldap';
  /** The second factors the user has (docs/interface.md#second-factor), so an admin can help one who lost them. */
  readonly second_factors: readonly ('totp' | 'passkey')[];
  /** The roles held beside `user_group` (docs/interface.md#roles); empty for most people. */
  readonly roles: readonly RoleGrant[];
}

/**
 * Present (and true) only when the password was set by someone else and must be changed before any call but
 * the password change, `me` and sign-out (docs/security.md).
 */
interface PendingPasswordChange {
  readonly must_change_password?: true;
}

/** Who is signed in (`GET /v1/account/me`). */
export interface MeView extends UserView, PendingPasswordChange {
  /**
   * Present only for a directory user (docs/interface.md#the-schools-directory): their password is changed in
   * the school's directory, never here.
   */
  readonly source?: 'ldap';
  /** The display name, present only when the person has one (the home page greets them by it). */
  readonly name?: string;
  /**
   * The roles held beside `user_group` (docs/interface.md#roles), present only for a role holder: the answer
   * of everyone else stays `{"uin","user_group","created_at"}`.
   */
  readonly roles?: readonly RoleGrant[];
}

/** The answer to a sign-in (`POST /v1/account/login`). */
export interface SignedInView extends PendingPasswordChange {
  readonly uin: number;
  readonly user_group: UserGroup;
}

/** Which app: what every view of an app starts with. */
export interface AppIdentityView {
  readonly client_id: string;
  readonly name: string;
  readonly emoji: string;
}

/** An app as the admin API shows it (never its secret or secret hash). */
export interface AppView extends AppIdentityView {
  readonly redirect_uris: readonly string[];
  readonly created_at: string;
  readonly disabled: boolean;
  readonly allow_refresh_tokens: boolean;
  /** Only members of these groups may use the app; empty: everyone. */
  readonly allowed_groups: readonly string[];
  /** OpenID Connect RP-Initiated Logout 1.0 §3 (docs/interface.md#sessions-and-sign-out). */
  readonly post_logout_redirect_uris: readonly string[];
  /** OpenID Connect Back-Channel Logout 1.0 §2.2, or null. */
  readonly backchannel_logout_uri: string | null;
  /** The last back-channel logout delivery attempt to this app, or null when none was made yet. */
  readonly backchannel_logout_last_attempt: { readonly at: string; readonly result: string } | null;
  /** Back-channel logouts queued for this app and not yet delivered (admin answers only). */
  readonly backchannel_logout_pending?: number;
  /** Shown to every signed-in user in the home page's app launcher. */
  readonly listed: boolean;
  /** Where its launcher tile leads; null: the origin of its first redirect URI. */
  readonly homepage_url: string | null;
  /** May use the Device Authorization Grant, RFC 8628 (docs/interface.md#device-authorization-grant). */
  readonly device_grant: boolean;
  /** docs/interface.md#cas-protocol: the CAS service URLs registered for it. */
  readonly cas_services: readonly string[];
  /** May get tokens for itself, without a user, RFC 6749 §4.4 (docs/interface.md#service-accounts-client-credentials). */
  readonly client_credentials: boolean;
  /** The scopes its client_credentials tokens may carry. */
  readonly allowed_scopes: readonly string[];
}

/** What the CAS sign-in page shows of the app a service belongs to (`GET /v1/cas/service-info`). */
export interface CasServiceInfoView {
  readonly name: string;
  readonly emoji: string;
  /** The service's host, so two apps of the same name are told apart. */
  readonly host: string;
  /** Said only when false: the signed-in user is outside the app's allowed groups, disabled or expired. */
  readonly allowed?: false;
  /** A shared-computer session: the user confirms each app. */
  readonly shared_computer: boolean;
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
/**
 * A device's request as the #/device page shows it before the user decides
 * (docs/interface.md#device-authorization-grant).
 */
export interface DeviceRequestView extends AppIdentityView {
  /** The scope the device asks for, space-separated, or null (none). */
  readonly scope: string | null;
  /** When and from where the device asked (RFC 8628 §5.4: the user checks it is the screen in front of them). */
  readonly requested_at: string;
  readonly ip: string | null;
  readonly user_agent: string | null;
  readonly expires_at: string;
}

/** What deciding a device's request answers. */
export interface DeviceDecisionView {
  readonly decision: 'allowed' | 'denied';
  readonly name: string;
  readonly emoji: string;
}

export interface AppInfoView extends AppIdentityView {
  /** The signed-in user already authorized this app for everything it asks now. */
  readonly consented: boolean;
  /** Present when the app asks for `offline_access` and may have refresh tokens: how long it stays signed in. */
  readonly stays_signed_in_days?: number;
  /** Present, and false, only when the signed-in user is in none of the app's allowed groups. */
  readonly allowed?: false;
  /**
   * The session is on a shared computer: a remembered consent is not used silently, the user confirms
   * each app (docs/interface.md#sessions-and-sign-out).
   */
  readonly shared_computer: boolean;
  /**
   * Present when the rest of the request is invalid (a bad `response_type`, PKCE method, scope…): the page
   * says so before anyone signs in, and its way back carries the error to the app (RFC 6749 §4.1.2.1).
   */
  readonly request_error?: AuthorizationRequestError;
}

/** An error of the authorization request that goes back to the app, and the URL that takes it there. */
export interface AuthorizationRequestError {
  readonly error: string;
  readonly error_description: string;
  readonly redirect_to: string;
}

/** An app the signed-in user authorized (`GET /v1/account/consents`). */
export interface ConsentView extends AppIdentityView {
  readonly scope: string | null;
  readonly granted_at: string;
}

/** A second factor `POST /v1/account/login` can ask for (docs/interface.md#second-factor). */
export type SecondFactorKind = 'passkey' | 'totp' | 'recovery_code';

/** The answer to a right password when a second factor is still needed: the sign-in is pending. */
export interface PendingSignInView extends SignedInView {
  /** The factors the user has, the one to offer first first. */
  readonly second_factor: readonly SecondFactorKind[];
}

/** A passkey as the account page lists it (`GET /v1/account/passkeys`). */
export interface PasskeyView {
  readonly id: string;
  readonly name: string;
  readonly created_at: string;
  readonly last_used_at: string | null;
  /** Synced between devices by its provider (a "multi-device" credential), rather than bound to one. */
  readonly synced: boolean;
}

/** The signed-in user's second factors (`GET /v1/account/second-factors`). */
export interface SecondFactorsView {
  readonly totp: boolean;
  readonly passkeys: readonly PasskeyView[];
  /** Unused recovery codes left. */
  readonly recovery_codes_left: number;
  /** The user's group needs a second factor before admin calls work (MFA_REQUIRED_GROUPS). */
  readonly required: boolean;
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
  /** The app whose service token made the call (docs/interface.md#service-tokens-at-the-admin-api); null for a person. */
  readonly actor_client_id: string | null;
}
