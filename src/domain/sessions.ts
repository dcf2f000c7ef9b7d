import type { Clock } from '../clock.js';
import type { SessionView } from '../shared/views.js';
import type { Repositories, SessionRecord, Store, UserRecord } from '../storage/store.js';
import { AMR, withSecondFactor } from './amr.js';
import { randomToken, sha256Hex } from './crypto.js';
import { isActiveUser } from './active-user.js';

/** A session on a shared computer idles out after 15 minutes (docs/interface.md#sessions-and-sign-out). */
export const SHARED_IDLE_TTL_SECONDS = 15 * 60;
/** Activity is written at most once a minute per session, so browsing costs no write per request. */
export const TOUCH_INTERVAL_MS = 60_000;
/** What is kept of a user agent: enough to recognize the browser. */
const MAX_USER_AGENT_LENGTH = 256;

/** Where and how a session starts. */
export interface SessionStart {
  readonly shared?: boolean | undefined;
  readonly ip?: string | undefined;
  readonly userAgent?: string | undefined;
  /** How the user proved who they are (RFC 8176); a password by default. */
  readonly amr?: readonly string[] | undefined;
}

export interface SessionTimeouts {
  /** SESSION_TTL, seconds. */
  readonly absolute: number;
  /** SESSION_IDLE_TTL, seconds. */
  readonly idle: number;
}

/** Which sessions a sign-out ends: one (by its id hash), one of a user's (by its sid), or all of a user's but one. */
export type SignOut =
  | { readonly idHash: string }
  | { readonly uin: number; readonly sid: string }
  | { readonly uin: number; readonly except?: string | undefined };

/**
 * The one sign-out: every way a session ends comes here (docs/interface.md#sessions-and-sign-out): signing
 * out, everywhere or one session from the account page, RP-initiated logout, an admin's sign-out, a password
 * change or reset and disabling the user (UserService, inside the transaction of the change). The storage
 * queues the back-channel logouts of the ended sessions in the same transaction (src/storage/sessions.ts).
 * Answers how many sessions ended.
 */
export async function signOut(repositories: Pick<Repositories, 'sessions'>, which: SignOut): Promise<number> {
  if ('idHash' in which) return (await repositories.sessions.delete(which.idHash)) ? 1 : 0;
  if ('sid' in which) return (await repositories.sessions.deleteBySid(which.uin, which.sid)) ? 1 : 0;
  return repositories.sessions.deleteForUser(which.uin, which.except);
}

/** How a session appears on the account page. */
export function sessionView(session: SessionRecord, currentIdHash: string | undefined): SessionView {
  return {
    id: session.sid,
    created_at: new Date(session.createdAt).toISOString(),
    last_seen_at: new Date(session.lastSeenAt).toISOString(),
    ip: session.ip,
    user_agent: session.userAgent,
    shared: session.shared,
    current: session.idHash === currentIdHash,
  };
}

/**
 * Browser sessions live in the database (shared by every instance); the cookie carries a random id and the
 * database only its SHA-256. Each also has a public id, `sid`, which the account page and id_tokens show.
 * Ending sessions (any of the `end…` methods) queues the back-channel logouts of the apps that were signed in
 * through them (src/storage/sessions.ts).
 */
export class SessionService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly timeouts: SessionTimeouts,
  ) {}

  private idleMs(shared: boolean): number {
    return (shared ? Math.min(SHARED_IDLE_TTL_SECONDS, this.timeouts.idle) : this.timeouts.idle) * 1000;
  }

  /**
   * Starts a session; answers the cookie value. `start.amr`: how the user proved who they are (RFC 8176),
   * for the id_tokens issued in this session.
   */
  async start(uin: number, start: SessionStart = {}): Promise<{ id: string; session: SessionRecord }> {
    const id = randomToken(32);
    const now = this.clock.now();
    const shared = start.shared === true;
    const session: SessionRecord = {
      idHash: sha256Hex(id),
      // 16 random bytes: 22 base64url characters.
      sid: randomToken(16),
      uin,
      createdAt: now,
      expiresAt: now + this.timeouts.absolute * 1000,
      lastSeenAt: now,
      idleExpiresAt: now + this.idleMs(shared),
      ip: start.ip ?? null,
      userAgent: start.userAgent?.slice(0, MAX_USER_AGENT_LENGTH) ?? null,
      shared,
      amr: start.amr ?? [AMR.password],
    };
    await this.store.sessions.insert(session);
    return { id, session };
  }

  /**
   * The signed-in user behind a cookie value, if the session is live (neither expired nor idle too long)
   * and the user enabled. Counts as activity.
   */
  async resolve(id: string): Promise<{ session: SessionRecord; user: UserRecord } | undefined> {
    if (id.length === 0 || id.length > 128) return undefined;
    const now = this.clock.now();
    const session = await this.store.sessions.findActive(sha256Hex(id), now);
    if (!session) return undefined;
    const user = await this.store.users.find(session.uin);
    // An expired account acts as disabled (docs/interface.md#people-groups-and-audit).
    if (!user || !isActiveUser(user, now)) return undefined;
    if (now - session.lastSeenAt >= TOUCH_INTERVAL_MS) {
      await this.store.sessions.touch(session.idHash, now, now + this.idleMs(session.shared));
    }
    return { session, user };
  }

  /**
   * The session has just proven a second factor by enrolling the account's first one (docs/security.md#second-factors):
   * it now counts as signed in with the password and that factor (`method`, RFC 8176).
   */
  async provedSecondFactor(session: SessionRecord, method: string): Promise<void> {
    if (session.amr.includes(AMR.multiFactor)) return;
    await this.store.sessions.setAmr(session.idHash, withSecondFactor(method));
  }

  /** The user's live sessions, newest first. */
  list(uin: number): Promise<SessionRecord[]> {
    return this.store.sessions.listForUser(uin, this.clock.now());
  }

  /** Ends the session behind a cookie value. */
  async end(id: string): Promise<void> {
    await signOut(this.store, { idHash: sha256Hex(id) });
  }

  /** Ends one of the user's sessions by its public id; answers whether it was theirs and live. */
  async endBySid(uin: number, sid: string): Promise<boolean> {
    return (await signOut(this.store, { uin, sid })) > 0;
  }

  /** Ends every session of the user (but the one whose id hash is `keepIdHash`); answers how many. */
  endAll(uin: number, keepIdHash?: string): Promise<number> {
    return signOut(this.store, { uin, except: keepIdHash });
  }
}
