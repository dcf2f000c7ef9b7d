/**
 * The user's side of the device grant (RFC 8628 §3.3; docs/interface.md#device-authorization-grant): a
 * signed-in user types the code shown on a device, sees what asks, and allows or denies it, once.
 *
 * Wrong codes (unknown, used or expired) are throttled, because a user code carries only ~34.6 bits (RFC 8628
 * §5.1): 5 a minute per session, and 60 a minute per address (a classroom shares one NAT address). Each
 * attempt is counted BEFORE the code is looked up (so a burst of simultaneous guesses cannot slip past the
 * count) and given back when the code was right.
 */
import type { Clock } from '../clock.js';
import { normalizedUserCode, userCodeKey } from './device-user-code.js';
import { groupsAllow } from '../shared/people.js';
import type {
  AppRecord,
  DeviceAuthorizationRecord,
  SessionRecord,
  Store,
  UserRecord,
} from '../storage/store.js';

const WINDOW_MS = 60_000;
const PER_SESSION = 5;
const PER_ADDRESS = 60;

/** Who is entering a code: their session's public id and their address. */
export interface CodeEntrant {
  readonly sid: string;
  readonly ip: string;
}

/** A code entered: throttled, wrong (unknown, used or expired), or the live request it names with its app. */
export type CodeLookup =
  | { readonly kind: 'throttled'; readonly retryAfter: number }
  | { readonly kind: 'wrong' }
  | {
      readonly kind: 'found';
      readonly request: DeviceAuthorizationRecord;
      readonly app: AppRecord;
    };

/** What deciding answers: the lookup's refusals, the app's allowed_groups refusal, or the decision made. */
export type DecisionOutcome =
  | Exclude<CodeLookup, { kind: 'found' }>
  | { readonly kind: 'not_allowed'; readonly app: AppRecord }
  | { readonly kind: 'decided'; readonly app: AppRecord; readonly request: DeviceAuthorizationRecord };

const sessionKey = (sid: string): string => `device-code:session:${sid}`;
const addressKey = (ip: string): string => `device-code:address:${ip}`;

export class DeviceApprovalService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Finds the live request a typed code names; counts the attempt (docs/security.md). */
  async lookUp(typed: string, entrant: CodeEntrant): Promise<CodeLookup> {
    const now = this.clock.now();
    const windowStartedBy = now - WINDOW_MS;
    const [session, address] = await Promise.all([
      this.store.throttles.hit(sessionKey(entrant.sid), now, windowStartedBy),
      this.store.throttles.hit(addressKey(entrant.ip), now, windowStartedBy),
    ]);
    // Over either budget: 429 until its window ends (a refused attempt does not lengthen the window).
    const over = [
      session.failures > PER_SESSION ? session.windowStart : undefined,
      address.failures > PER_ADDRESS ? address.windowStart : undefined,
    ].filter((start): start is number => start !== undefined);
    if (over.length > 0) {
      const until = Math.max(...over.map((start) => start + WINDOW_MS));
      return { kind: 'throttled', retryAfter: Math.max(1, Math.ceil((until - now) / 1000)) };
    }
    const found = await this.findLive(typed, now);
    if (!found) return { kind: 'wrong' };
    // A right code costs nothing.
    await Promise.all([
      this.store.throttles.refund(sessionKey(entrant.sid)),
      this.store.throttles.refund(addressKey(entrant.ip)),
    ]);
    return { kind: 'found', ...found };
  }

  /**
   * The signed-in user allows or denies the request the code names. Allowing stores, in the same
   * transaction, the authorization code the device's next poll redeems (under the device code's key, so
   * the code grant's rules apply to it). Of two decisions racing, one wins; the other is a used code.
   */
  async decide(
    typed: string,
    allow: boolean,
    signedIn: { readonly session: SessionRecord; readonly user: UserRecord },
    ip: string,
  ): Promise<DecisionOutcome> {
    const { session, user } = signedIn;
    const found = await this.lookUp(typed, { sid: session.sid, ip });
    if (found.kind !== 'found') return found;
    const { request, app } = found;
    // docs/interface.md#people-groups-and-audit: only members of the app's allowed groups may approve it.
    if (allow && !groupsAllow(app.allowedGroups, user.groups)) return { kind: 'not_allowed', app };
    const now = this.clock.now();
    const won = await this.store.transaction(async (tx) => {
      if (
        !(await tx.deviceAuthorizations.decide(
          request.userCodeHash,
          allow ? 'approved' : 'denied',
          user.uin,
          now,
        ))
      ) {
        return false;
      }
      if (allow) {
        await tx.codes.insert({
          codeHash: request.deviceCodeHash,
          clientId: request.clientId,
          uin: user.uin,
          redirectUri: '',
          scope: request.scope,
          nonce: null,
          codeChallenge: null,
          codeChallengeMethod: null,
          // OIDC Core §2 auth_time and amr: when and how the approving user signed in.
          authTime: session.createdAt,
          amr: session.amr,
          createdAt: now,
          // The device may redeem it for as long as its device code lives.
          expiresAt: request.expiresAt,
          usedAt: null,
          sid: session.sid,
        });
      }
      return true;
    });
    // Lost the race: the code is used now, as if it had been typed after the other decision.
    if (!won) return { kind: 'wrong' };
    return { kind: 'decided', app, request };
  }

  private async findLive(
    typed: string,
    now: number,
  ): Promise<{ request: DeviceAuthorizationRecord; app: AppRecord } | undefined> {
    const code = normalizedUserCode(typed);
    if (code === undefined) return undefined;
    const request = await this.store.deviceAuthorizations.findByUserCode(userCodeKey(code));
    if (!request || request.status !== 'pending' || request.expiresAt <= now) return undefined;
    const app = await this.store.apps.find(request.clientId);
    // An app disabled, deleted or switched off the device grant meanwhile: its codes are void.
    if (!app || app.disabled || app.deviceGrant !== true) return undefined;
    return { request, app };
  }
}
