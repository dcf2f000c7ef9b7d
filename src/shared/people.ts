/**
 * Rules about people's profiles and groups (docs/interface.md#people-groups-and-audit) that the server
 * enforces and the pages check before sending. Dependency-free: the pages bundle this module as it is.
 */

/** A display name is at most this many characters (code points, after trimming). */
export const MAX_NAME_LENGTH = 64;
export const MAX_EMAIL_LENGTH = 254;
/** A user carries at most this many group tags; an app allows at most as many. */
export const MAX_GROUPS = 32;
/** A group tag: `teachers`, `class-2026-3`. */
export const GROUP_TAG = /^[a-z0-9._-]{1,64}$/;

/** Answers why `name` may not be a display name, or undefined when it may. */
export function nameProblem(name: string): string | undefined {
  return [...name.trim()].length > MAX_NAME_LENGTH
    ? `name must be at most ${MAX_NAME_LENGTH} characters`
    : undefined;
}

/**
 * An address of the form local@domain.tld, without spaces (a deliverability check is the mail server's job;
 * this catches typing mistakes such as a missing @ or a pasted name).
 */
const EMAIL = /^[^\s@"<>(),;:\\[\]]+@[^\s@"<>(),;:\\[\]]+\.[^\s@"<>(),;:\\[\].]+$/;

export function emailProblem(email: string): string | undefined {
  if (email.length > MAX_EMAIL_LENGTH) return `email must be at most ${MAX_EMAIL_LENGTH} characters`;
  return EMAIL.test(email) ? undefined : 'email must be an address such as name@example.edu';
}

/** Answers why `groups` may not be a list of group tags, or undefined when it may. */
export function groupsProblem(groups: readonly string[]): string | undefined {
  if (groups.length > MAX_GROUPS) return `at most ${MAX_GROUPS} groups`;
  const bad = groups.find((tag) => !GROUP_TAG.test(tag));
  return bad === undefined ? undefined : `group "${bad}" must be 1 to 64 characters of a-z 0-9 . _ -`;
}

/** Splits a typed list (`teachers; class-2026-3`, commas or spaces too) into tags, lower-cased, without repeats. */
export function parseGroupList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[;,\s]+/)
        .map((tag) => tag.trim().toLowerCase())
        .filter((tag) => tag !== ''),
    ),
  ];
}

/** Whether a user in `groups` may use an app that allows `allowed` (empty: everyone). */
export function groupsAllow(allowed: readonly string[], groups: readonly string[]): boolean {
  return allowed.length === 0 || groups.some((tag) => allowed.includes(tag));
}

/** The audit trail's actions (docs/interface.md#people-groups-and-audit). */
export const AUDIT_ACTIONS = [
  'sign_in',
  'sign_out',
  'consent_given',
  'consent_withdrawn',
  'password_changed',
  'password_reset',
  'reset_code_issued',
  'reset_code_redeemed',
  'app_created',
  'app_updated',
  'app_secret_rotated',
  'app_deleted',
  'signing_keys_rotated',
  'user_created',
  'user_updated',
  'users_imported',
  'user_unlocked',
  'users_bulk',
  'users_disabled_dormant',
  'ldap_sync',
  'second_factor_added',
  'second_factor_removed',
  'recovery_codes_regenerated',
  'second_factors_removed_by_admin',
  'session_ended',
  'user_signed_out_by_admin',
  'cas_ticket_issued',
  'cas_ticket_validated',
  'device_code_entered',
  'device_approved',
  'device_denied',
  'phone_sign_in_approved',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** How an audited action ended: `locked` is a sign-in refused because the account or address is locked. */
export const AUDIT_OUTCOMES = ['success', 'failure', 'locked', 'denied'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/**
 * The columns of the user CSV import in their documented order: the first three are required, the rest
 * optional. The page maps a file's header onto them; the server takes rows with these members.
 */
export const IMPORT_COLUMNS = [
  'uin',
  'password',
  'user_group',
  'name',
  'email',
  'groups',
  'expires_at',
] as const;
