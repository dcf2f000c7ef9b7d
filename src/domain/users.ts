import type { Clock } from '../clock.js';
import type { AdminUserView, UserView } from '../shared/views.js';
import type { UserGroup } from '../shared/users.js';
import type { NewUserRecord, SessionRecord, Store, UserRecord, UserUpdate } from '../storage/store.js';
import { hashPassword, needsRehash, verifySignIn } from './passwords.js';

// The uin rule is shared with the pages.
export { isValidUin } from '../shared/users.js';

/** The public view of a user, as every JSON answer shows it. */
export function userView(user: Pick<UserRecord, 'uin' | 'userGroup' | 'createdAt'>): UserView {
  return { uin: user.uin, user_group: user.userGroup, created_at: new Date(user.createdAt).toISOString() };
}

const isoOrNull = (epochMs: number | null): string | null =>
  epochMs === null ? null : new Date(epochMs).toISOString();

/** A user as the admin API shows them: the public view plus the account's state and profile. */
export function adminUserView(
  user: UserRecord,
  lockedUntil: number | null = null,
  secondFactors: readonly ('totp' | 'passkey')[] = [],
): AdminUserView {
  return {
    ...userView(user),
    disabled: user.disabled,
    name: user.name,
    email: user.email,
    groups: user.groups,
    expires_at: isoOrNull(user.expiresAt),
    last_sign_in_at: isoOrNull(user.lastSignInAt),
    locked_until: isoOrNull(lockedUntil),
    second_factors: secondFactors,
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

/**
 * How a password was chosen. Someone who knows a password they did not choose themselves (the first start's
 * log, an admin, a CSV import) could use it, so its owner must change it at the next sign-in
 * (docs/security.md). A password the operator gives the command line is the operator's own business.
 */
export interface NewPasswordOptions {
  readonly mustChangePassword?: boolean;
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
    { mustChangePassword = false, ...profile }: NewPasswordOptions & NewUserProfile = {},
  ): Promise<UserRecord | undefined> {
    return this.insert(uin, await hashPassword(password), group, mustChangePassword, profile);
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
    return this.insert(uin, NO_PASSWORD_YET, group, false, profile);
  }

  /** A new enabled user, never signed in; undefined when the uin is taken. */
  private async insert(
    uin: number,
    passwordHash: string,
    group: UserGroup,
    mustChangePassword: boolean,
    profile: NewUserProfile,
  ): Promise<UserRecord | undefined> {
    const user: UserRecord = {
      uin,
      passwordHash,
      userGroup: group,
      createdAt: this.clock.now(),
      disabled: false,
      mustChangePassword,
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
   * and not expired); every refusal (unknown uin, wrong password, imported hash, disabled or expired) costs
   * the same time (verifySignIn).
   */
  async authenticate(uin: number, password: string): Promise<UserRecord | undefined> {
    const user = await this.store.users.find(uin);
    const usable = user !== undefined && isActiveUser(user, this.clock.now());
    if (!(await verifySignIn(user?.passwordHash, password, usable)) || !user) return undefined;
    // Only after a success, so re-hashing never changes how long a refusal takes.
    if (needsRehash(user.passwordHash)) {
      await this.store.users.update(uin, { passwordHash: await hashPassword(password) });
    }
    return user;
  }

  /**
   * The user changes their own password (proven by the caller): whatever the old one let anyone obtain ends
   * (`endAccess`) except the session making the change, and a password that had to be changed no longer has to.
   */
  async changeOwnPassword(uin: number, password: string, currentSessionIdHash: string): Promise<boolean> {
    const passwordHash = await hashPassword(password);
    if (!(await this.store.users.update(uin, { passwordHash, mustChangePassword: false }))) return false;
    await this.endAccess(uin, currentSessionIdHash);
    return true;
  }

  /**
   * A password reset by the user with an admin's reset code: the password is their own choice, and whoever
   * held the old one loses everything it gave them (`endAccess`).
   */
  async resetPassword(uin: number, password: string): Promise<boolean> {
    const passwordHash = await hashPassword(password);
    if (!(await this.store.users.update(uin, { passwordHash, mustChangePassword: false }))) return false;
    await this.endAccess(uin);
    return true;
  }

  /**
   * Disabling a user signs them out everywhere and revokes their tokens and codes for good: enabling them
   * again gives back the account, not what it had granted (docs/security.md).
   */
  async setDisabled(uin: number, disabled: boolean): Promise<boolean> {
    const changed = await this.store.users.update(uin, { disabled });
    if (changed && disabled) await this.endAccess(uin);
    return changed;
  }

  /**
   * A security event ends access (docs/security.md): every session of the user but `keepSessionIdHash`, every
   * code not yet redeemed, every access and refresh token. Called after the change is written, so nobody can
   * sign in again with what was replaced. In this order: with the sessions gone no new code can be asked for,
   * and with the codes voided no new token can be issued; a code redeemed before the void has its tokens
   * revoked by the last step.
   */
  private async endAccess(uin: number, keepSessionIdHash?: string): Promise<void> {
    await this.store.sessions.deleteForUser(uin, keepSessionIdHash);
    await this.store.codes.voidForUser(uin, this.clock.now());
    await this.store.tokens.revokeAllForUser(uin);
  }

  /**
   * An admin changes a user's group, enabled state, profile and password. The service must always keep one
   * enabled admin, or nobody could manage it any more (docs/interface.md#admin-api): a change that would
   * leave none is refused, and nothing is written.
   *
   * `adminSession`: the session of the admin making the change. A password reset ends every session of the
   * user but this one, revokes their tokens and codes, and makes them choose a new password at the next
   * sign-in — unless the admin reset their own, which they chose themselves.
   */
  async changeAsAdmin(
    uin: number,
    changes: UserChanges,
    adminSession: Pick<SessionRecord, 'uin' | 'idHash'>,
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
    // Disabling (or expiring now) ends everything the user had, for good.
    const endsAccount =
      disabled === true || (expiresAt !== undefined && expiresAt !== null && expiresAt <= now);
    if (password !== undefined) {
      const passwordHash = await hashPassword(password);
      await this.store.users.update(uin, { passwordHash, mustChangePassword: uin !== adminSession.uin });
    }
    // A reset usually follows a compromise: whoever held the old password loses what it gave them — except
    // the admin making this call, when they reset their own.
    if (endsAccount) await this.endAccess(uin);
    else if (password !== undefined) await this.endAccess(uin, adminSession.idHash);
    const changed = await this.store.users.find(uin);
    return changed ? { outcome: 'changed', user: changed } : { outcome: 'not-found' };
  }
}
