/**
 * Rules about users that the server enforces and the pages check before sending
 * (docs/interface.md#resources).
 * Dependency-free: the pages bundle this module as it is.
 */

/** The `user_group` values: this list alone (the storage records, the API schemas, the CLI, the imports). */
export const USER_GROUPS = ['admin', 'member', 'user'] as const;
export type UserGroup = (typeof USER_GROUPS)[number];

export function isUserGroup(value: unknown): value is UserGroup {
  return typeof value === 'string' && (USER_GROUPS as readonly string[]).includes(value);
}

/** Why `value` is not a user group, or undefined. */
export function userGroupProblem(value: unknown): string | undefined {
  return isUserGroup(value) ? undefined : `user_group must be one of ${USER_GROUPS.join(', ')}`;
}

/** A uin is a positive integer up to 2^53−1 (docs/interface.md#resources). */
export function isValidUin(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 256;

/** Answers why `password` may not be set, or undefined when it may. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH)
    return `password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH)
    return `password must be at most ${MAX_PASSWORD_LENGTH} characters`;
  return undefined;
}
