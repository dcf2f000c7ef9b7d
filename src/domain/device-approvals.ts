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
import { mergeScopes } from '../shared/scopes.js';
import type {
  AppRecord,
  DeviceAuthorizationRecord,
  SessionRecord,
  Store,
  UserRecord,
} from '../storage/store.js';

/**
 * The redirect URI of the code an approval stores: no browser is sent anywhere. Codes of the authorization
 * endpoint always carry the registered URI they were sent to, never this; the code grant tells them apart by it.
 */
export const DEVICE_APPROVAL_REDIRECT_URI = '';

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

  /**
   * Finds the live request a typed code names; counts the attempt (docs/security.md). Only a code that is
   * looked up counts against the address: a session over its own budget is refused before the address is
   * charged, and an attempt the address's budget refuses is taken back from both, so that one student's
   * retries never lock out the rest of a classroom behind the same address.
   */
  async lookUp(typed: string, entrant: CodeEntrant): Promise<CodeLookup> {
    const now = this.clock.now();
    const windowStartedBy = now - WINDOW_MS;
    const refused = (windowStart: number): CodeLookup => ({
      kind: 'throttled',
      // 429 until the window ends (a refused attempt does not lengthen the window).
      retryAfter: Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000)),
    });
    const session = await this.store.throttles.hit(sessionKey(entrant.sid), now, windowStartedBy);
    if (session.failures > PER_SESSION) return refused(session.windowStart);
    const address = await this.store.throttles.hit(addressKey(entrant.ip), now, windowStartedBy);
    if (address.failures > PER_ADDRESS) {
      await this.refund(entrant);
      return refused(address.windowStart);
    }
    const found = await this.findLive(typed, now);
    if (!found) return { kind: 'wrong' };
    // A right code costs nothing.
    await this.refund(entrant);
    return { kind: 'found', ...found };
  }

  private async refund(entrant: CodeEntrant): Promise<void> {
    await Promise.all([
      this.store.throttles.refund(sessionKey(entrant.sid)),
      this.store.throttles.refund(addressKey(entrant.ip)),
    ]);
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
          redirectUri: DEVICE_APPROVAL_REDIRECT_URI,
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
        // The user sees the app on #/account and can withdraw it, which ends what the device holds, as
        // for an app they authorized in the browser (docs/interface.md#consent).
        const previous = await tx.consents.find(user.uin, request.clientId);
        await tx.consents.upsert({
          uin: user.uin,
          clientId: request.clientId,
          scope: mergeScopes(previous?.scope ?? null, request.scope),
          grantedAt: now,
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
