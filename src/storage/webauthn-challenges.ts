/** The webauthn_challenges table: its queries (docs/architecture.md#storage). */
import { Repository, nullableNumber } from './connection.js';
import type { WebAuthnChallengeRecord, WebAuthnChallengeRepository, WebAuthnPurpose } from './store.js';

export class WebAuthnChallenges extends Repository implements WebAuthnChallengeRepository {
  async insert(challenge: WebAuthnChallengeRecord): Promise<void> {
    const { challengeHash, purpose, uin, expiresAt } = challenge;
    await this.db
      .insertInto('webauthn_challenges')
      .values({ challenge_hash: challengeHash, purpose, uin, expires_at: expiresAt })
      .execute();
  }

  async take(challengeHash: string): Promise<WebAuthnChallengeRecord | undefined> {
    // DELETE … RETURNING: of two requests with one challenge, only one gets the row (single use).
    const row = await this.db
      .deleteFrom('webauthn_challenges')
      .where('challenge_hash', '=', challengeHash)
      .returningAll()
      .executeTakeFirst();
    return (
      row && {
        challengeHash: row.challenge_hash,
        purpose: row.purpose as WebAuthnPurpose,
        uin: nullableNumber(row.uin),
        expiresAt: Number(row.expires_at),
      }
    );
  }

  async countLive(purpose: WebAuthnPurpose, now: number): Promise<number> {
    const row = await this.db
      .selectFrom('webauthn_challenges')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('purpose', '=', purpose)
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  purgeExpired(now: number): Promise<number> {
    return this.deleteExpired('webauthn_challenges', now);
  }
}
