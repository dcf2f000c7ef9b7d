/**
 * The code exchanges this process committed but knows it did not answer (docs/security.md#token-endpoint-and-grants):
 * the database failed during or after the commit (the exchange answered 503), or the client's connection
 * closed before the answer was fully sent. Only these may be retried once, within RETRY_WINDOW_MS, and get
 * the same tokens; any other second use of a code is refused and revokes (RFC 6749 §4.1.2).
 *
 * Held by code key (`credentialKey`, never the code), in memory, per instance: a retry that lands on another
 * instance finds nothing here and gets the RFC answer (docs/security.md#token-endpoint-and-grants).
 */
import type { AppContext } from '../app-context.js';
import type { Clock } from '../clock.js';

/** How long a retry of an exchange that went unanswered is still answered with the same tokens. */
export const RETRY_WINDOW_MS = 60_000;
/** At most this many at once; the oldest go first (a flood of aborted exchanges cannot grow the memory). */
const MAX_ENTRIES = 10_000;
/** How long a second use waits for the first exchange's answer, still being sent, to be delivered or not. */
const SETTLE_MS = 5_000;

export class UndeliveredExchanges {
  /** Code key → when the retry window ends (epoch ms); insertion order is expiry order. */
  private readonly until = new Map<string, number>();
  /** Code key → the outcome of its answer, still being sent (true: not delivered). */
  private readonly sending = new Map<string, Promise<boolean>>();

  /**
   * The exchange of `codeKey` committed and its answer is on its way: `undelivered` settles once the answer was
   * fully sent (false) or the connection closed first (true). A second use meanwhile waits for it (`take`).
   */
  answering(codeKey: string, undelivered: Promise<boolean>, clock: Clock): void {
    this.sending.set(codeKey, undelivered);
    void undelivered.then((lost) => {
      if (this.sending.get(codeKey) === undelivered) this.sending.delete(codeKey);
      if (lost) this.record(codeKey, clock.now());
    });
  }

  record(codeKey: string, now: number): void {
    this.until.delete(codeKey);
    this.until.set(codeKey, now + RETRY_WINDOW_MS);
    for (const [key, end] of this.until) {
      if (end > now && this.until.size <= MAX_ENTRIES) break;
      this.until.delete(key);
    }
  }

  /**
   * Whether the answer to `codeKey`'s exchange is known not delivered, within the window; consumes the record
   * (one retry per undelivered answer). Waits (at most SETTLE_MS) for an answer still being sent.
   */
  async take(codeKey: string, now: number): Promise<boolean> {
    const sending = this.sending.get(codeKey);
    if (sending !== undefined) await settled(sending);
    const end = this.until.get(codeKey);
    if (end === undefined) return false;
    this.until.delete(codeKey);
    return end >= now;
  }

  /** The exchange did commit and answer after all (a retry of a 503 that had not committed). */
  forget(codeKey: string): void {
    if (this.until.size > 0) this.until.delete(codeKey);
  }
}

/** `outcome`, or SETTLE_MS passed (then the answer counts as delivered: the RFC rule applies). */
async function settled(outcome: Promise<boolean>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, SETTLE_MS);
    timer.unref();
  });
  await Promise.race([outcome, late]);
  clearTimeout(timer);
}

const perContext = new WeakMap<AppContext, UndeliveredExchanges>();

/** This instance's record (one per server context). */
export function undeliveredExchanges(ctx: AppContext): UndeliveredExchanges {
  let exchanges = perContext.get(ctx);
  if (!exchanges) {
    exchanges = new UndeliveredExchanges();
    perContext.set(ctx, exchanges);
  }
  return exchanges;
}
