/**
 * The wire types. Views and rules are the server's own (src/shared): one definition, so the two cannot
 * drift; the request shapes only the pages send are defined here.
 */

import type { PageLogoutParameters } from '../../../src/shared/logout';
import type { UserGroup } from '../../../src/shared/users';
import type { AppView } from '../../../src/shared/views';
import type { AuthenticationResponseJSON } from '@simplewebauthn/browser';

export { EnvelopeCode } from '../../../src/shared/envelope';
export { PAGE_LOGOUT_PARAMETERS } from '../../../src/shared/logout';
export { USER_GROUPS, type UserGroup } from '../../../src/shared/users';
export type {
  AdminUserView,
  AppInfoView,
  AppView,
  AuditEventView,
  AuthorizationRequestError,
  CasServiceInfoView,
  ConsentView,
  DeviceDecisionView,
  DeviceRequestView,
  MeView,
  PasskeyView,
  PendingSignInView,
  SecondFactorKind,
  SecondFactorsView,
  SessionView,
  SignedInView,
  UserView,
} from '../../../src/shared/views';
export type {
  BrandingView,
  InvalidLinkReason,
  LauncherAppView,
  LogoutRefusal,
} from '../../../src/shared/pages';

/** One answer to a pending sign-in (docs/interface.md#second-factor). */
export type SecondFactorAnswer =
  { totp: string } | { recovery_code: string } | { passkey: AuthenticationResponseJSON };

/** `POST /v1/account/logout`: everywhere, or the #/logout page's RP-initiated logout parameters. */
export interface LogoutRequest extends PageLogoutParameters {
  everywhere?: boolean;
}

/** An app's logout settings (docs/interface.md#sessions-and-sign-out). */
export type AppLogoutFields = Partial<Pick<AppView, 'post_logout_redirect_uris' | 'backchannel_logout_uri'>>;

/** The authorization request's parameters, passed through to `POST /v1/oauth2/authorize` unchanged. */
export interface AuthorizationParams {
  client_id: string;
  redirect_uri: string;
  state?: string;
  response_type?: string;
  response_mode?: string;
  scope?: string;
  nonce?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  prompt?: string;
  max_age?: string;
  request?: string;
  request_uri?: string;
}

export interface ImportRow {
  line: number;
  uin: number;
  /** Empty: the person gets a one-time reset code instead. */
  password: string;
  user_group: string;
  name?: string;
  email?: string;
  /** Group tags separated by `;`. */
  groups?: string;
  expires_at?: string;
}

export interface ImportResult {
  line: number;
  uin: number | null;
  status: 'created' | 'exists' | 'error';
  error?: string;
  reset_code?: string;
  reset_code_expires_at?: string;
}

/** The profile fields an admin edits (null clears). */
export interface UserProfilePatch {
  name?: string | null;
  email?: string | null;
  groups?: string[];
  expires_at?: string | null;
  /** docs/interface.md#roles: every role of the user at once (admins only). */
  roles?: RoleGrant[];
}

export type BulkAction = 'set_group' | 'add_tag' | 'remove_tag' | 'set_expiry' | 'disable' | 'enable';

export interface BulkRequest {
  uins: number[];
  action: BulkAction;
  user_group?: UserGroup;
  tag?: string;
  expires_at?: string | null;
}

export interface BulkResult {
  uin: number;
  status: 'changed' | 'not_found' | 'error';
  error?: string;
}

export interface AuditFilters {
  uin?: string;
  action?: string;
  outcome?: string;
  since?: string;
  until?: string;
}

/** docs/interface.md#roles: a role beside `user_group`, and the group tags it covers. */
export interface RoleGrant {
  readonly role: 'helpdesk' | 'auditor';
  readonly groups: readonly string[];
}

/** An app's service-account settings (docs/interface.md#service-accounts-client-credentials); confidential apps only. */
export interface AppServiceFields {
  client_credentials?: boolean;
  allowed_scopes?: string[];
}
