/**
 * What the routes of the signed-in user's own second factors share (docs/interface.md#second-factor): the
 * password asked again, enrolment with its recovery codes, the audit record, the passkey view and the
 * request shapes.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import type { PasskeyView } from '../../../shared/views.js';
import type { PasskeyRecord, UserRecord } from '../../../storage/store.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { PasswordInput } from '../../schemas.js';
import { type SignedIn, requireSignedIn } from '../../session-cookie.js';
import { requirePassword, requireRecentSignIn } from './password-check.js';

/** The Fastify instance the second-factor routes are added to. */
export type SecondFactorApp = Parameters<RoutePlugin>[0];

const iso = (epochMs: number | null): string | null =>
  epochMs === null ? null : new Date(epochMs).toISOString();

export function passkeyView(passkey: PasskeyRecord): PasskeyView {
  return {
    id: passkey.id,
    name: passkey.name,
    created_at: new Date(passkey.createdAt).toISOString(),
    last_used_at: iso(passkey.lastUsedAt),
    synced: passkey.deviceType === 'multiDevice',
  };
}

/** docs/interface.md#second-factor: 10 single-use codes, shown once. */
export const RECOVERY_CODES = { recovery_codes: Type.Array(Type.String()) };

export const PasswordBody = Type.Object({ password: PasswordInput }, { additionalProperties: false });
/**
 * Starting to add a factor, or removing a passkey: the password typed again, unless the sign-in is under 5
 * minutes old (docs/security.md#second-factors). No body at all is an empty one.
 */
export const PasswordAgainBody = Type.Optional(
  Type.Object({ password: Type.Optional(PasswordInput) }, { additionalProperties: false }),
);
export const emptyBodyIsNone = {
  preValidation: async (request: FastifyRequest) => {
    request.body ??= {};
  },
};

/** A change to the user's own second factors, in the audit trail (docs/interface.md#people-groups-and-audit). */
function auditFor(ctx: AppContext) {
  return (
    request: FastifyRequest,
    uin: number,
    action: 'second_factor_added' | 'second_factor_removed' | 'recovery_codes_regenerated',
    detail: Record<string, string>,
  ): Promise<void> => ctx.audit.recordOwn(request, uin, action, { detail });
}

/** The steps the second-factor routes share, over `ctx`. */
export function secondFactorSteps(ctx: AppContext) {
  const audit = auditFor(ctx);

  /** The signed-in user, once they typed their password again: removing or renewing a factor needs it. */
  async function signedInAgain(request: FastifyRequest, password: string): Promise<UserRecord> {
    const { user } = await requireSignedIn(ctx, request);
    await requirePassword(ctx, request, user, password);
    return user;
  }

  /**
   * The signed-in user, if they typed their password again or signed in under 5 minutes ago: starting to add
   * a factor, or removing a passkey, needs it (requireRecentSignIn).
   */
  async function signedInRecently(request: FastifyRequest, password: string | undefined): Promise<SignedIn> {
    const signedIn = await requireSignedIn(ctx, request);
    await requireRecentSignIn(ctx, request, signedIn, password);
    return signedIn;
  }

  /**
   * Adds a second factor to the signed-in user with `add` and records it; the first one a user adds also
   * gives them their recovery codes, shown once (docs/interface.md#second-factor).
   */
  async function enrol<T>(
    request: FastifyRequest,
    add: (user: UserRecord) => Promise<T>,
    proof: (added: T) => { method: string; detail: Record<string, string> },
  ): Promise<{ added: T; recovery: { recovery_codes?: string[] } }> {
    const signedIn = await requireSignedIn(ctx, request);
    const uin = signedIn.user.uin;
    const hadFactor = await ctx.secondFactors.hasSecondFactor(uin);
    const added = await add(signedIn.user);
    const { method, detail } = proof(added);
    await audit(request, uin, 'second_factor_added', detail);
    // docs/security.md#second-factors: the session that enrols the account's first factor has just proven it
    // (a right code, a verified passkey) and counts as signed in with it; no other session of the account does.
    if (!hadFactor) await ctx.sessions.provedSecondFactor(signedIn.session, method);
    const recoveryCodes = await ctx.secondFactors.afterEnrolment(uin, hadFactor);
    return { added, recovery: recoveryCodes ? { recovery_codes: recoveryCodes } : {} };
  }
  return { audit, signedInAgain, signedInRecently, enrol };
}

export type SecondFactorSteps = ReturnType<typeof secondFactorSteps>;
