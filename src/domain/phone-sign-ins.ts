/**
 * "Sign in with your phone" for lab computers (docs/interface.md#sign-in-with-your-phone). The computer asks
 * for a request and shows a QR code of its public id and a two-digit number; a phone already signed in opens
 * it, sees the computer's address and browser, and picks that number among three. The computer polls with a
 * secret only it holds (a cookie), and once approved gets a shared-computer session, once.
 *
 * Number matching is what makes a QR code seen over someone's shoulder (or sent in a chat) useless to a
 * phishing page: the phone's user must read the number off the computer in front of them, and one wrong pick
 * ends the request.
 */
import { randomInt } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { PhoneSignInRecord, SessionRecord, Store } from '../storage/store.js';
import { randomToken, sha256Hex } from './crypto.js';

/** Requests live 2 minutes (docs/interface.md#sign-in-with-your-phone). */
export const PHONE_SIGN_IN_TTL_MS = 2 * 60_000;
/**
 * New requests per address and minute: a lab of a hundred computers behind one NAT address, each starting
 * one, stays under it; a script filling the table with requests does not (docs/security.md).
 */
export const PHONE_SIGN_IN_STARTS_PER_MINUTE = 120;
const START_WINDOW_MS = 60_000;
const MAX_USER_AGENT = 256;

export interface StartedPhoneSignIn {
  /** In the QR code: names the request, grants nothing by itself. */
  readonly id: string;
  /** The computer's cookie: the only way to collect the session. */
  readonly secret: string;
  readonly number: number;
  readonly expiresAt: number;
}

/** A start refused: this address started too many requests this minute; it may try again after this. */
export interface ThrottledStart {
  readonly throttled: true;
  readonly retryAfter: number;
}

/** What the computer's poll learns. */
export type PhoneSignInPoll =
  | { readonly status: 'pending' | 'failed' | 'expired' | 'unknown' }
  | { readonly status: 'approved'; readonly uin: number; readonly amr: readonly string[] };

/** What a phone's pick answers. */
export type PhonePick = 'approved' | 'wrong' | 'gone';

const startKey = (ip: string): string => `phone-sign-in:start:address:${ip}`;
const idKey = (id: string): string => sha256Hex(`phone-sign-in:${id}`);
const secretKey = (secret: string): string => sha256Hex(`phone-sign-in-secret:${secret}`);

/** Three different two-digit numbers, `number` among them, in random order. */
function choicesWith(number: number): number[] {
  const choices = new Set([number]);
  while (choices.size < 3) choices.add(randomInt(10, 100));
  const list = [...choices];
  for (let i = list.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}

export class PhoneSignInService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** The computer's new request, from its address and browser, unless the address started too many. */
  async start(ip: string, userAgent: string | undefined): Promise<StartedPhoneSignIn | ThrottledStart> {
    const now = this.clock.now();
    // Counted before the insert, in one statement, so a burst of simultaneous starts is each counted.
    const starts = await this.store.throttles.hit(startKey(ip), now, now - START_WINDOW_MS);
    if (starts.failures > PHONE_SIGN_IN_STARTS_PER_MINUTE) {
      const retryAfter = Math.max(1, Math.ceil((starts.windowStart + START_WINDOW_MS - now) / 1000));
      return { throttled: true, retryAfter };
    }
    const id = randomToken(16);
    const secret = randomToken(32);
    const number = randomInt(10, 100);
    const expiresAt = now + PHONE_SIGN_IN_TTL_MS;
    await this.store.phoneSignIns.insert({
      idHash: idKey(id),
      secretHash: secretKey(secret),
      number,
      choices: choicesWith(number),
      createdAt: now,
      expiresAt,
      status: 'pending',
      uin: null,
      amr: null,
      ip,
      userAgent: userAgent?.slice(0, MAX_USER_AGENT) ?? null,
    });
    return { id, secret, number, expiresAt };
  }

  /** The request a phone scanned, while it can still be approved. */
  async findPending(id: string): Promise<PhoneSignInRecord | undefined> {
    const request = await this.store.phoneSignIns.findById(idKey(id));
    if (!request || request.status !== 'pending' || request.expiresAt <= this.clock.now()) return undefined;
    return request;
  }

  /** The phone's user picks a number: the right one approves, a wrong one ends the request. */
  async pick(id: string, number: number, session: SessionRecord): Promise<PhonePick> {
    const request = await this.findPending(id);
    if (!request) return 'gone';
    if (number !== request.number) {
      // Of two picks racing, one wins: a wrong one that finds the request decided already is too late.
      return (await this.store.phoneSignIns.fail(request.idHash)) ? 'wrong' : 'gone';
    }
    const approved = await this.store.phoneSignIns.approve(
      request.idHash,
      session.uin,
      session.amr,
      this.clock.now(),
    );
    return approved ? 'approved' : 'gone';
  }

  /** The computer's poll with its secret; an approved request is handed over once. */
  async poll(secret: string): Promise<PhoneSignInPoll> {
    const secretHash = secretKey(secret);
    const request = await this.store.phoneSignIns.findBySecret(secretHash);
    const now = this.clock.now();
    if (!request) return { status: 'unknown' };
    if (request.status === 'failed') return { status: 'failed' };
    if (request.status === 'used' || request.expiresAt <= now) return { status: 'expired' };
    if (request.status === 'pending') return { status: 'pending' };
    if (request.uin === null || !(await this.store.phoneSignIns.use(secretHash, now))) {
      return { status: 'expired' };
    }
    return { status: 'approved', uin: request.uin, amr: request.amr ?? [] };
  }
}
