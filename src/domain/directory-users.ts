/**
 * Directory users as campus-sso keeps them (docs/interface.md#the-schools-directory): source `ldap`, no password
 * stored, the profile (name, email, groups) copied from the directory at each sign-in and each sync.
 */
import type { Clock } from '../clock.js';
import type { Store, UserRecord, UserUpdate } from '../storage/store.js';
import type { DirectoryPerson } from './directory.js';

/**
 * What a directory user's `password_hash` holds: not a PHC string, so no password ever verifies against it
 * locally (verifySignIn treats a malformed hash as a failed verification).
 */
export const DIRECTORY_PASSWORD = '!directory: the school directory checks this password';

/** The message every password change or reset of a directory user answers (docs/interface.md). */
export const DIRECTORY_OWNS_PASSWORD = 'Change your password in the school directory';

export const isDirectoryUser = (user: Pick<UserRecord, 'source'>): boolean => user.source === 'ldap';

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((item, i) => item === b[i]);

/** The profile fields the directory says differently from what is stored (empty: nothing to change). */
export function profileChanges(user: UserRecord, person: DirectoryPerson): UserUpdate {
  const groups = [...person.groups].sort();
  return {
    ...(user.name !== person.name && { name: person.name }),
    ...(user.email !== person.email && { email: person.email }),
    ...(!sameList([...user.groups].sort(), groups) && { groups }),
  };
}

/** The new user a directory person becomes: group `user`, source `ldap`, their directory profile. */
export function newDirectoryUser(person: DirectoryPerson, clock: Clock): UserRecord {
  return {
    uin: person.uin,
    passwordHash: DIRECTORY_PASSWORD,
    userGroup: 'user',
    createdAt: clock.now(),
    disabled: false,
    mustChangePassword: false,
    source: 'ldap',
    name: person.name,
    email: person.email,
    groups: [...person.groups].sort(),
    expiresAt: null,
    lastSignInAt: null,
  };
}

/**
 * The user for a directory person who just proved their password: created on their first sign-in (just in
 * time), or with the profile brought up to date. Undefined when the uin belongs to a local user created
 * meanwhile (local users are never touched).
 */
export async function upsertDirectoryUser(
  store: Store,
  clock: Clock,
  existing: UserRecord | undefined,
  person: DirectoryPerson,
): Promise<{ user: UserRecord; created: boolean } | undefined> {
  if (existing === undefined) {
    const user = newDirectoryUser(person, clock);
    if (await store.users.insert(user)) return { user, created: true };
    // Taken meanwhile (two first sign-ins at once, or an admin): use it only if it is a directory user.
    const now = await store.users.find(person.uin);
    return now && isDirectoryUser(now) ? { user: now, created: false } : undefined;
  }
  if (!isDirectoryUser(existing)) return undefined;
  const changes = profileChanges(existing, person);
  if (Object.keys(changes).length === 0) return { user: existing, created: false };
  await store.users.update(existing.uin, changes);
  return { user: { ...existing, ...changes }, created: false };
}
