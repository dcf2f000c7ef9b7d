import type { Clock } from '../clock.js';
import type { SessionRecord, Store, UserRecord } from '../storage/store.js';
import { AMR } from './amr.js';
import { randomToken, sha256Hex } from './crypto.js';
import { isActiveUser } from './users.js';

/**
 * Browser sessions live in the database (shared by every instance); the cookie carries a random id and the
 * database only its SHA-256.
 */
export class SessionService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
  ) {}

  /**
   * Starts a session; answers the cookie value. `amr`: how the user proved who they are (RFC 8176), for the
   * id_tokens issued in this session.
   */
  async start(
    uin: number,
    amr: readonly string[] = [AMR.password],
  ): Promise<{ id: string; session: SessionRecord }> {
    const id = randomToken(32);
    const now = this.clock.now();
    const session: SessionRecord = {
      idHash: sha256Hex(id),
      uin,
      createdAt: now,
      expiresAt: now + this.ttlSeconds * 1000,
      amr,
    };
    await this.store.sessions.insert(session);
    return { id, session };
  }

  /** The signed-in user behind a cookie value, if the session is live and the user enabled. */
  async resolve(id: string): Promise<{ session: SessionRecord; user: UserRecord } | undefined> {
    if (id.length === 0 || id.length > 128) return undefined;
    const session = await this.store.sessions.findActive(sha256Hex(id), this.clock.now());
    if (!session) return undefined;
    const user = await this.store.users.find(session.uin);
    // An expired account acts as disabled (docs/interface.md#people-groups-and-audit).
    if (!user || !isActiveUser(user, this.clock.now())) return undefined;
    return { session, user };
  }

  async end(id: string): Promise<void> {
    await this.store.sessions.delete(sha256Hex(id));
  }
}
