/**
 * Whose word decides a password (docs/interface.md#the-schools-directory): a local user's argon2id hash here,
 * or, for a user whose source is `ldap` (and an unknown uin, when a directory is configured), the school's
 * directory. Everything around the check (throttle, second factor, audit, `amr`, sessions) is the same for
 * both, so the sign-in routes call this one seam and nothing else decides.
 */
import type { Clock } from '../clock.js';
import type { Store, UserRecord } from '../storage/store.js';
import { type Directory, DirectoryUnavailable } from './directory.js';
import { isDirectoryUser, upsertDirectoryUser } from './directory-users.js';
import { verifyPassword, verifySignIn } from './passwords.js';
import { type UserService, isActiveUser } from './users.js';

export type SignInCheck =
  | {
      readonly outcome: 'accepted';
      readonly user: UserRecord;
      /** A directory person signing in for the first time: the account was created just now. */
      readonly created: boolean;
      /** A directory person's groups that are no group tags, left out of their groups (to be reported). */
      readonly skippedGroups?: readonly string[];
    }
  | { readonly outcome: 'refused' }
  | { readonly outcome: 'directory-unavailable'; readonly error: DirectoryUnavailable };

export class PasswordVerifier {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly users: UserService,
    readonly directory: Directory | undefined,
  ) {}

  /**
   * A sign-in's uin and password. A refusal of a directory user costs what a local refusal does (the same
   * dummy verifications, docs/security.md) plus the directory's answer; a wrong uin and a wrong password
   * answer alike.
   */
  async signIn(uin: number, password: string): Promise<SignInCheck> {
    // Without a directory, exactly the local check (no extra look-up on the sign-in path).
    if (this.directory === undefined) return this.local(uin, password);
    const user = await this.store.users.find(uin);
    // docs/interface.md#the-schools-directory: local users are unaffected, even when the directory has their uin.
    if (user !== undefined && !isDirectoryUser(user)) {
      const checked = await this.local(uin, password);
      // A refusal costs the directory search an unknown uin's does (its outcome, or an outage, ignored).
      if (checked.outcome === 'refused') await this.directory.lookUpOnly(uin).catch(() => undefined);
      return checked;
    }

    let accepted: Awaited<ReturnType<Directory['signIn']>>;
    try {
      accepted = await this.directory.signIn(uin, password);
    } catch (error) {
      if (error instanceof DirectoryUnavailable) return { outcome: 'directory-unavailable', error };
      throw error;
    }
    const usable = user === undefined || isActiveUser(user, this.clock.now());
    if (accepted.outcome !== 'accepted' || !usable) {
      // The same local work a refused local sign-in does, so that timing does not tell the cases apart.
      await verifySignIn(undefined, password, false, () => this.store.users.hasPreviousSystemHashes());
      return { outcome: 'refused' };
    }
    const stored = await upsertDirectoryUser(this.store, this.clock, user, accepted.person);
    if (stored === undefined) return { outcome: 'refused' };
    const skipped = accepted.person.skippedGroups;
    return {
      outcome: 'accepted',
      user: stored.user,
      created: stored.created,
      ...(skipped.length > 0 && { skippedGroups: skipped }),
    };
  }

  /**
   * The current password of a signed-in user, typed again (to remove a second factor): the hash here, or the
   * directory's bind. Throws DirectoryUnavailable when the directory cannot be asked.
   */
  async verifyCurrent(user: UserRecord, password: string): Promise<boolean> {
    if (!isDirectoryUser(user)) return verifyPassword(user.passwordHash, password);
    if (this.directory === undefined) return false;
    return (await this.directory.signIn(user.uin, password)).outcome === 'accepted';
  }

  private async local(uin: number, password: string): Promise<SignInCheck> {
    const user = await this.users.authenticate(uin, password);
    return user ? { outcome: 'accepted', user, created: false } : { outcome: 'refused' };
  }
}
