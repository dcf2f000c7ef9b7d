import type { Clock } from '../clock.js';
import type { AdminUserView, UserView } from '../shared/views.js';
import type { UserGroup } from '../shared/users.js';
import type { NewUserRecord, Store, UserRecord, UserUpdate } from '../storage/store.js';
import { hashPassword, needsRehash, verifyAgainstDummy, verifyPassword } from './passwords.js';

// The uin rule is shared with the pages.
export { isValidUin } from '../shared/users.js';

/** The public view of a user, as every JSON answer shows it. */
export function userView(user: Pick<UserRecord, 'uin' | 'userGroup' | 'createdAt'>): UserView {
  return { uin: user.uin, user_group: user.userGroup, created_at: new Date(user.createdAt).toISOString() };
}

const isoOrNull = (epochMs: number | null): string | null =>
  epochMs === null ? null : new Date(epochMs).toISOString();

/** A user as the admin API shows them: the public view plus the account's state and profile. */
export function adminUserView(user: UserRecord, lockedUntil: number | null = null): AdminUserView {
  return {
    ...userView(user),
    disabled: user.disabled,
    name: user.name,
    email: user.email,
    groups: user.groups,
    expires_at: isoOrNull(user.expiresAt),
    last_sign_in_at: isoOrNull(user.lastSignInAt),
    locked_until: isoOrNull(lockedUntil),
  };
}

/**
 * Whether the account may sign in and its tokens work at `now`: enabled, and not past its `expiresAt`
 * (docs/interface.md#people-groups-and-audit: an expired account acts as disabled).
 */
export function isActiveUser(user: Pick<UserRecord, 'disabled' | 'expiresAt'>, now: number): boolean {
  return !user.disabled && (user.expiresAt === null || user.expiresAt > now);
}

/** Not a PHC string: no password verifies against it (a malformed hash is a failed verification). */
const NO_PASSWORD_YET = '!no password yet: redeem a reset code';

/** The optional profile of a new user. */
export type NewUserProfile = Partial<Pick<NewUserRecord, 'name' | 'email' | 'groups' | 'expiresAt'>>;

/** What an admin may change about a user (`PATCH /v1/admin/users/:uin`, the bulk actions). */
export interface UserChanges {
  readonly userGroup?: UserGroup | undefined;
  readonly disabled?: boolean | undefined;
  /** Already checked against the password rule. */
  readonly password?: string | undefined;
  /** null clears; all already checked against the profile rules (src/shared/people.ts). */
  readonly name?: string | null | undefined;
  readonly email?: string | null | undefined;
  readonly groups?: readonly string[] | undefined;
  readonly expiresAt?: number | null | undefined;
}

/**
 * How an admin's change ended. `last-admin`: refused before anything was written, because it would leave no
 * enabled admin. `last-admin-raced`: another change landed at the same moment and together they left none, so
 * this one was written back.
 */
export type AdminChangeOutcome =
  | { readonly outcome: 'changed'; readonly user: UserRecord }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'last-admin' }
  | { readonly outcome: 'last-admin-raced' };

/**
 * Whether the change takes an enabled admin out of the enabled admins (demotes or disables them, or makes
 * their account expire).
 */
export function removesAnAdmin(user: UserRecord, changes: UserChanges, now = Date.now()): boolean {
  if (user.userGroup !== 'admin' || user.disabled) return false;
  const demoted = changes.userGroup !== undefined && changes.userGroup !== 'admin';
  const expired = changes.expiresAt !== undefined && changes.expiresAt !== null && changes.expiresAt <= now;
  return demoted || changes.disabled === true || expired;
}

export class UserService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Creates a user; answers undefined when the uin is taken. */
  async create(
    uin: number,
    password: string,
    group: UserGroup,
    profile: NewUserProfile = {},
  ): Promise<UserRecord | undefined> {
    const user: UserRecord = {
      uin,
      passwordHash: await hashPassword(password),
      userGroup: group,
      createdAt: this.clock.now(),
      disabled: false,
      name: profile.name ?? null,
      email: profile.email ?? null,
      groups: profile.groups ?? [],
      expiresAt: profile.expiresAt ?? null,
      lastSignInAt: null,
    };
    return (await this.store.users.insert(user)) ? user : undefined;
  }

  /**
   * Creates a user who has no password yet: nobody can sign in as them until they redeem a reset code
   * (docs/interface.md#people-groups-and-audit). Answers undefined when the uin is taken.
   */
  async createWithoutPassword(
    uin: number,
    group: UserGroup,
    profile: NewUserProfile = {},
  ): Promise<UserRecord | undefined> {
    const user: UserRecord = {
      uin,
      passwordHash: NO_PASSWORD_YET,
      userGroup: group,
      createdAt: this.clock.now(),
      disabled: false,
      name: profile.name ?? null,
      email: profile.email ?? null,
      groups: profile.groups ?? [],
      expiresAt: profile.expiresAt ?? null,
      lastSignInAt: null,
    };
    return (await this.store.users.insert(user)) ? user : undefined;
  }

  /**
   * Checks a uin and password. Answers the user only when both are right and the account is active (enabled
   * and not expired); an unknown uin costs the same time as a wrong password.
   */
  async authenticate(uin: number, password: string): Promise<UserRecord | undefined> {
    const user = await this.store.users.find(uin);
    if (!user) return verifyAgainstDummy(password).then(() => undefined);
    if (!(await verifyPassword(user.passwordHash, password))) return undefined;
    if (!isActiveUser(user, this.clock.now())) return undefined;
    if (needsRehash(user.passwordHash)) {
      await this.store.users.update(uin, { passwordHash: await hashPassword(password) });
    }
    return user;
  }

  async setPassword(uin: number, password: string): Promise<boolean> {
    return this.store.users.update(uin, { passwordHash: await hashPassword(password) });
  }

  /**
   * A password reset (by an admin's reset code): the new password, and whoever held the old one loses
   * everything it gave them — every session, every access and refresh token.
   */
  async resetPassword(uin: number, password: string): Promise<boolean> {
    if (!(await this.setPassword(uin, password))) return false;
    await this.store.sessions.deleteForUser(uin);
    await this.store.tokens.revokeForUser(uin);
    return true;
  }

  /** Disabling a user signs them out everywhere; their tokens stop working at the next look-up. */
  async setDisabled(uin: number, disabled: boolean): Promise<boolean> {
    const changed = await this.store.users.update(uin, { disabled });
    if (changed && disabled) await this.store.sessions.deleteForUser(uin);
    return changed;
  }

  /**
   * An admin changes a user's group, enabled state, profile and password. The service must always keep one
   * enabled admin, or nobody could manage it any more (docs/interface.md#admin-api): a change that would
   * leave none is refused, and nothing is written.
   *
   * `adminSessionIdHash`: the session of the admin making the change, which a password reset keeps.
   */
  async changeAsAdmin(
    uin: number,
    changes: UserChanges,
    adminSessionIdHash: string,
  ): Promise<AdminChangeOutcome> {
    const user = await this.store.users.find(uin);
    if (!user) return { outcome: 'not-found' };
    const now = this.clock.now();
    const removesAdmin = removesAnAdmin(user, changes, now);
    if (removesAdmin && (await this.store.users.countAdmins()) <= 1) return { outcome: 'last-admin' };

    const { userGroup, disabled, password, name, email, groups, expiresAt } = changes;
    const update: UserUpdate = {
      ...(userGroup !== undefined && { userGroup }),
      ...(disabled !== undefined && { disabled }),
      ...(name !== undefined && { name }),
      ...(email !== undefined && { email }),
      ...(groups !== undefined && { groups }),
      ...(expiresAt !== undefined && { expiresAt }),
    };
    if (Object.keys(update).length > 0) await this.store.users.update(uin, update);
    // Two admins demoting each other at once could each see the other still enabled: count again after
    // writing and put this change back if it left no enabled admin. The store has no transaction to hold
    // both, so the check runs before anything else is done (sign-outs, the password), and a refused change
    // leaves nothing behind.
    if (removesAdmin && (await this.store.users.countAdmins()) === 0) {
      await this.store.users.update(uin, {
        userGroup: user.userGroup,
        disabled: user.disabled,
        expiresAt: user.expiresAt,
      });
      return { outcome: 'last-admin-raced' };
    }
    // Disabling (or expiring) signs the user out everywhere; their tokens stop working at the next look-up.
    const endsAccount =
      disabled === true || (expiresAt !== undefined && expiresAt !== null && expiresAt <= now);
    if (endsAccount) await this.store.sessions.deleteForUser(uin);
    if (password !== undefined) {
      await this.setPassword(uin, password);
      // A reset usually follows a compromise: whoever held the old password is signed out everywhere —
      // except the admin making this call, when they reset their own.
      await this.store.sessions.deleteForUser(uin, adminSessionIdHash);
    }
    const changed = await this.store.users.find(uin);
    return changed ? { outcome: 'changed', user: changed } : { outcome: 'not-found' };
  }
}
