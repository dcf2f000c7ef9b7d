import type { Clock } from '../clock.js';
import type { UserGroup } from '../shared/users.js';
import type {
  NewUserRecord,
  Repositories,
  SessionRecord,
  Store,
  UserRecord,
  UserUpdate,
} from '../storage/store.js';
import { endUseOfAppsNoLongerAllowed } from './app-access.js';
import {
  type CheckedPassword,
  enforcedPassword,
  hashPassword,
  needsRehash,
  passwordProblem,
  verifySignIn,
} from './passwords.js';
import { enforce } from './rule-violation.js';
import { signOut } from './sessions.js';
import { userGroupProblem } from '../shared/users.js';
import { isActiveUser } from './active-user.js';
import { type AdminChangeOutcome, type UserChanges, removesAnAdmin } from './admin-user-changes.js';
import { isDirectoryUser } from './directory-users.js';
import { checkedRoles } from './roles.js';
import { removeFactorsAddedSinceLastSignIn } from './second-factors.js';

// The uin rule is shared with the pages.
export { isValidUin } from '../shared/users.js';
// Split by what they do; imported from here as before.
export { adminUserView, userView } from './user-views.js';
export { isActiveUser } from './active-user.js';
export { type AdminChangeOutcome, type UserChanges, removesAnAdmin } from './admin-user-changes.js';

/** Not a PHC string: no password verifies against it (a malformed hash is a failed verification). */
const NO_PASSWORD_YET = '!no password yet: redeem a reset code';

/** The optional profile of a new user. */
export type NewUserProfile = Partial<Pick<NewUserRecord, 'name' | 'email' | 'groups' | 'expiresAt'>>;

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

  /** The user with this uin, whatever their state. */
  find(uin: number): Promise<UserRecord | undefined> {
    return this.store.users.find(uin);
  }

  /** Notes that the user signed in now (the admin page's "last sign-in"). */
  recordSignIn(uin: number): Promise<void> {
    return this.store.users.recordSignIn(uin, this.clock.now());
  }

  /** Creates a user; answers undefined when the uin is taken. */
  async create(
    uin: number,
    password: string | CheckedPassword,
    group: UserGroup,
    { mustChangePassword = false, ...profile }: NewPasswordOptions & NewUserProfile = {},
  ): Promise<UserRecord | undefined> {
    // The password policy, for every way a user is created: the admin API, the CSV import, the command
    // line, the first admin (docs/security.md#one-rule-one-place).
    const plain = enforcedPassword(password, uin);
    return this.insert(uin, await hashPassword(plain), group, mustChangePassword, profile);
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
    enforce(userGroupProblem(group));
    const user: UserRecord = {
      uin,
      passwordHash,
      source: 'local',
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
    const previousLeft = (): Promise<boolean> => this.store.users.hasPreviousSystemHashes();
    if (!(await verifySignIn(user?.passwordHash, password, usable, previousLeft)) || !user) return undefined;
    // Only after a success, so re-hashing never changes how long a refusal takes.
    if (needsRehash(user.passwordHash)) {
      await this.store.users.update(uin, { passwordHash: await hashPassword(password) });
    }
    return user;
  }

  /**
   * The user changes their own password (proven by the caller): whatever the old one let anyone obtain ends
   * (`endAccess`) except the session making the change, and a password that had to be changed no longer has to.
   * One transaction: the new password never stands beside the old one's sessions and tokens.
   */
  async changeOwnPassword(uin: number, password: string, currentSessionIdHash: string): Promise<boolean> {
    enforce(passwordProblem(password, uin));
    const passwordHash = await hashPassword(password);
    return this.store.transaction(async (tx) => {
      if (!(await tx.users.update(uin, { passwordHash, mustChangePassword: false }))) return false;
      await endAccess(tx, uin, this.clock.now(), currentSessionIdHash);
      return true;
    });
  }

  /**
   * A password reset by the user with an admin's reset code: the password is their own choice, and whoever
   * held the old one loses everything it gave them (`endAccess`), with the second factors added since the
   * last sign-in with one (docs/security.md#second-factors). `redeem` uses the code up in the same
   * transaction (ResetCodeService.redeem): when it answers false, nothing changes and neither does this.
   */
  async resetPassword(
    uin: number,
    password: string,
    redeem: (tx: Repositories) => Promise<boolean> = async () => true,
  ): Promise<boolean> {
    enforce(passwordProblem(password, uin));
    const passwordHash = await hashPassword(password);
    return this.store.transaction(async (tx) => {
      if (!(await redeem(tx))) return false;
      if (!(await tx.users.update(uin, { passwordHash, mustChangePassword: false }))) return false;
      // docs/security.md#second-factors: what a stolen session may have added goes with the old password.
      await removeFactorsAddedSinceLastSignIn(tx, uin);
      await endAccess(tx, uin, this.clock.now());
      return true;
    });
  }

  /**
   * Disabling a user signs them out everywhere and revokes their tokens and codes for good: enabling them
   * again gives back the account, not what it had granted (docs/security.md).
   */
  async setDisabled(uin: number, disabled: boolean): Promise<boolean> {
    return this.store.transaction(async (tx) => {
      const changed = await tx.users.update(uin, { disabled });
      if (changed && disabled) await endAccess(tx, uin, this.clock.now());
      return changed;
    });
  }

  /**
   * An admin changes a user's group, enabled state, profile, password and roles, in one transaction: a
   * request that changes several is written whole or not at all. The service must always keep one
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
    adminSession: Pick<SessionRecord, 'uin' | 'idHash'> | null,
  ): Promise<AdminChangeOutcome> {
    // null: an app's service token (docs/interface.md#service-tokens-at-the-admin-api), which has no session of its own.
    const actorUin = adminSession?.uin;
    const user = await this.store.users.find(uin);
    if (!user) return { outcome: 'not-found' };
    // docs/interface.md#the-schools-directory: a directory user's password is changed in the directory only.
    if (changes.password !== undefined && isDirectoryUser(user)) return { outcome: 'directory-password' };
    const now = this.clock.now();
    // The service always keeps an enabled admin whose account never expires: an expired admin is none, and
    // one that expires tomorrow is none tomorrow.
    const lasting = { lasting: true } as const;
    const removesAdmin = removesAnAdmin(user, changes);
    if (removesAdmin && (await this.store.users.countAdmins(now, lasting)) <= 1)
      return { outcome: 'last-admin' };

    const { userGroup, disabled, password, name, email, groups, expiresAt } = changes;
    if (userGroup !== undefined) enforce(userGroupProblem(userGroup));
    if (password !== undefined) enforce(passwordProblem(password, uin));
    const roles = changes.roles === undefined ? undefined : checkedRoles(changes.roles);
    // Hashed before the transaction: nothing slow runs inside one (docs/architecture.md#transactions).
    const passwordHash = password === undefined ? undefined : await hashPassword(password);
    const update: UserUpdate = {
      ...(userGroup !== undefined && { userGroup }),
      ...(disabled !== undefined && { disabled }),
      ...(name !== undefined && { name }),
      ...(email !== undefined && { email }),
      ...(groups !== undefined && { groups }),
      ...(expiresAt !== undefined && { expiresAt }),
      ...(passwordHash !== undefined && { passwordHash, mustChangePassword: uin !== actorUin }),
    };
    // Disabling (or expiring now) ends everything the user had, for good.
    const endsAccount =
      disabled === true || (expiresAt !== undefined && expiresAt !== null && expiresAt <= now);
    const raced = await this.store
      .transaction(async (tx) => {
        if (removesAdmin) await tx.users.lockAdminChanges();
        if (Object.keys(update).length > 0) await tx.users.update(uin, update);
        if (roles !== undefined) await tx.roles.replace(uin, roles, now);
        // Two admins demoting each other at once could each see the other still enabled: such changes run
        // one after the other (the lock), each counts again after writing, and one that left no enabled
        // admin is rolled back whole.
        if (removesAdmin && (await tx.users.countAdmins(now, lasting)) === 0) throw new LastAdminRaced();
        // A reset usually follows a compromise: whoever held the old password loses what it gave them —
        // except the admin making this call, when they reset their own. Committed with the change.
        // docs/security.md#second-factors: what a stolen session may have added goes with the old password.
        if (password !== undefined && uin !== actorUin) await removeFactorsAddedSinceLastSignIn(tx, uin);
        if (endsAccount) await endAccess(tx, uin, now);
        else if (password !== undefined) await endAccess(tx, uin, now, adminSession?.idHash);
        // New groups end what the user holds for apps that no longer allow them (app-access.ts).
        if (groups !== undefined && !endsAccount) await endUseOfAppsNoLongerAllowed(tx, uin, groups, now);
        return false;
      })
      .catch((error: unknown) => {
        if (error instanceof LastAdminRaced) return true;
        throw error;
      });
    if (raced) return { outcome: 'last-admin-raced' };
    const changed = await this.store.users.find(uin);
    if (!changed) return { outcome: 'not-found' };
    return { outcome: 'changed', user: changed, ...(roles !== undefined && { roles }) };
  }
}

/** Rolls back an admin's change that, with another one at the same moment, left no enabled admin. */
class LastAdminRaced extends Error {}

/**
 * A security event ends access (docs/security.md): every session of the user but `keepSessionIdHash` (their
 * back-channel logouts queued), every code not yet redeemed, every access and refresh token. Run in the
 * transaction that writes the change, so that both commit together: never a new password with the old
 * tokens alive. In this order: with the sessions gone no new code can be asked for, and with the codes
 * voided no new token can be issued; a code redeemed before the void has its tokens revoked by the last step.
 */
async function endAccess(
  tx: Pick<Repositories, 'sessions' | 'codes' | 'tokens'>,
  uin: number,
  now: number,
  keepSessionIdHash?: string,
): Promise<void> {
  await signOut(tx, { uin, except: keepSessionIdHash });
  await tx.codes.voidForUser(uin, now);
  await tx.tokens.revokeAllForUser(uin);
}
