import type { Clock } from '../clock.js';
import type { Store, UserGroup, UserRecord } from '../storage/store.js';
import { hashPassword, needsRehash, verifySignIn } from './passwords.js';

/** SPEC §1: a uin is a positive integer up to 2^53−1. */
export function isValidUin(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** The public view of a user, as every JSON answer shows it. */
export interface UserView {
  readonly uin: number;
  readonly user_group: UserGroup;
  readonly created_at: string;
}

export function userView(user: Pick<UserRecord, 'uin' | 'userGroup' | 'createdAt'>): UserView {
  return { uin: user.uin, user_group: user.userGroup, created_at: new Date(user.createdAt).toISOString() };
}

export class UserService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Creates a user; answers undefined when the uin is taken. */
  async create(uin: number, password: string, group: UserGroup): Promise<UserRecord | undefined> {
    const user: UserRecord = {
      uin,
      passwordHash: await hashPassword(password),
      userGroup: group,
      createdAt: this.clock.now(),
      disabled: false,
    };
    return (await this.store.users.insert(user)) ? user : undefined;
  }

  /**
   * Checks a uin and password. Answers the user only when both are right and the user is enabled; every
   * refusal (unknown uin, wrong password, imported hash, disabled) costs the same time (verifySignIn).
   */
  async authenticate(uin: number, password: string): Promise<UserRecord | undefined> {
    const user = await this.store.users.find(uin);
    const usable = user !== undefined && !user.disabled;
    if (!(await verifySignIn(user?.passwordHash, password, usable)) || !user) return undefined;
    // Only after a success, so re-hashing never changes how long a refusal takes.
    if (needsRehash(user.passwordHash)) {
      await this.store.users.update(uin, { passwordHash: await hashPassword(password) });
    }
    return user;
  }

  async setPassword(uin: number, password: string): Promise<boolean> {
    return this.store.users.update(uin, { passwordHash: await hashPassword(password) });
  }

  /** Disabling a user signs them out everywhere; their tokens stop working at the next look-up. */
  async setDisabled(uin: number, disabled: boolean): Promise<boolean> {
    const changed = await this.store.users.update(uin, { disabled });
    if (changed && disabled) await this.store.sessions.deleteForUser(uin);
    return changed;
  }
}
