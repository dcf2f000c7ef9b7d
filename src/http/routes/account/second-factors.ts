/**
 * The signed-in user's own second factors (docs/interface.md#second-factor): TOTP set-up, confirmation and
 * removal, passkeys (register, list, remove) and recovery codes. The first factor enrolled comes with 10
 * recovery codes, answered once; removing the last one voids them.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import { AMR, passkeyMethod } from '../../../domain/amr.js';
import { PasskeyError, type RegistrationResponseJSON } from '../../../domain/passkeys.js';
import type { PasskeyView, SecondFactorsView } from '../../../shared/views.js';
import type { PasskeyRecord, UserRecord } from '../../../storage/store.js';
import { badRequest, conflict, notFound } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { PasswordInput } from '../../schemas.js';
import { type SignedIn, requireSignedIn } from '../../session-cookie.js';
import { requirePassword, requireRecentSignIn } from './password-check.js';
import { CeremonyOptions, RegistrationResponseInput } from './webauthn-schemas.js';
import { TOTP_CODE_PATTERN } from '../../../shared/totp.js';
import { EmptyEnvelope, Envelope, EnvelopeOf } from '../../response-schemas.js';
import { PasskeyViewSchema, SecondFactorsViewSchema } from '../../view-schemas.js';

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
const RECOVERY_CODES = { recovery_codes: Type.Array(Type.String()) };

const TotpSetupAnswers = {
  200: EnvelopeOf({ secret: Type.String(), otpauth_uri: Type.String() }, 'The secret, to show as a QR code'),
};
/** Recovery codes come with the account's first factor only. */
const RecoveryCodesAnswers = {
  200: EnvelopeOf({ recovery_codes: Type.Optional(RECOVERY_CODES.recovery_codes) }),
};
const PasskeyAddedAnswers = {
  200: EnvelopeOf({
    passkey: PasskeyViewSchema,
    recovery_codes: Type.Optional(RECOVERY_CODES.recovery_codes),
  }),
};
const PasskeysAnswers = { 200: EnvelopeOf({ passkeys: Type.Array(PasskeyViewSchema) }) };

const CodeBody = Type.Object(
  { code: Type.String({ pattern: TOTP_CODE_PATTERN }) },
  { additionalProperties: false },
);
const PasswordBody = Type.Object({ password: PasswordInput }, { additionalProperties: false });
const PasskeyBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 64 }), response: RegistrationResponseInput },
  { additionalProperties: false },
);
const PasskeyParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });
/**
 * Starting to add a factor, or removing a passkey: the password typed again, unless the sign-in is under 5
 * minutes old (docs/security.md#second-factors). No body at all is an empty one.
 */
const PasswordAgainBody = Type.Optional(
  Type.Object({ password: Type.Optional(PasswordInput) }, { additionalProperties: false }),
);
const emptyBodyIsNone = {
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

export const secondFactorRoutes: RoutePlugin = async (app, { ctx }) => {
  const audit = auditFor(ctx);

  /** The signed-in user, once they typed their password again: removing or renewing a factor needs it. */
  async function signedInAgain(request: FastifyRequest, password: string): Promise<UserRecord> {
    const { user } = await requireSignedIn(ctx, request);
    await requirePassword(ctx, request, user, password);
    return user;
  }

  /**
   * Adds a second factor with `add` and records it; the first one a user adds also gives them their
   * recovery codes, shown once (docs/interface.md#second-factor).
   */
  async function enrol<T>(
    request: FastifyRequest,
    signedIn: SignedIn,
    add: () => Promise<T>,
    proof: (added: T) => { method: string; detail: Record<string, string> },
  ): Promise<{ added: T; recovery: { recovery_codes?: string[] } }> {
    const uin = signedIn.user.uin;
    const hadFactor = await ctx.secondFactors.hasSecondFactor(uin);
    const added = await add();
    const { method, detail } = proof(added);
    await audit(request, uin, 'second_factor_added', detail);
    // docs/security.md#second-factors: the session that enrols the account's first factor has just proven it
    // (a right code, a verified passkey) and counts as signed in with it; no other session of the account does.
    if (!hadFactor) await ctx.sessions.provedSecondFactor(signedIn.session, method);
    const recoveryCodes = await ctx.secondFactors.afterEnrolment(uin, hadFactor);
    return { added, recovery: recoveryCodes ? { recovery_codes: recoveryCodes } : {} };
  }
  // The answers carry secrets (TOTP secret, recovery codes): no browser or proxy may keep them.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('cache-control', 'no-store');
    return payload;
  });

  app.get(
    '/v1/account/second-factors',
    { schema: { response: { 200: Envelope(SecondFactorsViewSchema) } } },
    async (request) => {
      const { user } = await requireSignedIn(ctx, request);
      const [totp, passkeys, recoveryCodes] = await Promise.all([
        ctx.totp.isEnrolled(user.uin),
        ctx.passkeys.list(user.uin),
        ctx.secondFactors.unusedRecoveryCodes(user.uin),
      ]);
      const view: SecondFactorsView = {
        totp,
        passkeys: passkeys.map(passkeyView),
        recovery_codes_left: recoveryCodes,
        required: ctx.secondFactors.isRequiredFor(user),
      };
      return ok(view);
    },
  );

  app.post(
    '/v1/account/totp/setup',
    {
      schema: { body: PasswordAgainBody, response: TotpSetupAnswers },
      config: { csrf: true },
      ...emptyBodyIsNone,
    },
    async (request) => {
      const signedIn = await requireSignedIn(ctx, request);
      const { user } = signedIn;
      await requireRecentSignIn(ctx, request, signedIn, request.body?.password);
      const setup = await ctx.totp.setup(user.uin);
      if (!setup) throw conflict('an authenticator app is set up already: remove it first');
      return ok({ secret: setup.secret, otpauth_uri: setup.otpauthUri });
    },
  );

  app.post(
    '/v1/account/totp/confirm',
    { schema: { body: CodeBody, response: RecoveryCodesAnswers }, config: { csrf: true } },
    async (request) => {
      const signedIn = await requireSignedIn(ctx, request);
      const { user } = signedIn;
      const { recovery } = await enrol(
        request,
        signedIn,
        async () => {
          if (!(await ctx.totp.confirm(user.uin, request.body.code))) {
            throw badRequest(
              'wrong code, or no authenticator app awaits confirmation: check the time on the phone',
            );
          }
        },
        () => ({ method: AMR.oneTimePassword, detail: { kind: 'totp' } }),
      );
      return ok(recovery);
    },
  );

  app.delete(
    '/v1/account/totp',
    { schema: { body: PasswordBody, response: { 200: EmptyEnvelope } }, config: { csrf: true } },
    async (request) => {
      const user = await signedInAgain(request, request.body.password);
      if (!(await ctx.totp.remove(user.uin))) throw notFound('no authenticator app is set up');
      await ctx.secondFactors.afterRemoval(user.uin);
      await audit(request, user.uin, 'second_factor_removed', { kind: 'totp' });
      return ok({});
    },
  );

  // The password (or a recent sign-in) is asked here, before the ceremony: only a challenge issued now lets
  // `POST /v1/account/passkeys` register a passkey, within its 5 minutes.
  app.post(
    '/v1/account/passkeys/options',
    {
      schema: { body: PasswordAgainBody, response: { 200: Envelope(CeremonyOptions) } },
      config: { csrf: true },
      ...emptyBodyIsNone,
    },
    async (request) => {
      const signedIn = await requireSignedIn(ctx, request);
      await requireRecentSignIn(ctx, request, signedIn, request.body?.password);
      return ok(await ctx.passkeys.registrationOptions(signedIn.user.uin));
    },
  );

  app.post(
    '/v1/account/passkeys',
    { schema: { body: PasskeyBody, response: PasskeyAddedAnswers }, config: { csrf: true } },
    async (request) => {
      const signedIn = await requireSignedIn(ctx, request);
      const { user } = signedIn;
      const { added, recovery } = await enrol(
        request,
        signedIn,
        async (): Promise<PasskeyRecord> => {
          try {
            return await ctx.passkeys.register(
              user.uin,
              request.body.name.trim() || 'Passkey',
              request.body.response as RegistrationResponseJSON,
            );
          } catch (error) {
            if (error instanceof PasskeyError) throw badRequest(error.message);
            throw error;
          }
        },
        (passkey) => ({ method: passkeyMethod(passkey), detail: { kind: 'passkey', passkey: passkey.id } }),
      );
      return ok({ passkey: passkeyView(added), ...recovery });
    },
  );

  app.get('/v1/account/passkeys', { schema: { response: PasskeysAnswers } }, async (request) => {
    const { user } = await requireSignedIn(ctx, request);
    return ok({ passkeys: (await ctx.passkeys.list(user.uin)).map(passkeyView) });
  });

  app.delete(
    '/v1/account/passkeys/:id',
    {
      schema: { params: PasskeyParams, body: PasswordAgainBody, response: { 200: EmptyEnvelope } },
      config: { csrf: true },
      ...emptyBodyIsNone,
    },
    async (request) => {
      const signedIn = await requireSignedIn(ctx, request);
      const { user } = signedIn;
      await requireRecentSignIn(ctx, request, signedIn, request.body?.password);
      if (!(await ctx.passkeys.remove(user.uin, request.params.id))) {
        throw notFound('no such passkey');
      }
      await ctx.secondFactors.afterRemoval(user.uin);
      await audit(request, user.uin, 'second_factor_removed', {
        kind: 'passkey',
        passkey: request.params.id,
      });
      return ok({});
    },
  );

  app.post(
    '/v1/account/recovery-codes',
    { schema: { body: PasswordBody, response: { 200: EnvelopeOf(RECOVERY_CODES) } }, config: { csrf: true } },
    async (request) => {
      const user = await signedInAgain(request, request.body.password);
      if (!(await ctx.secondFactors.hasSecondFactor(user.uin))) {
        throw conflict(
          'recovery codes come with a second factor: add a passkey or an authenticator app first',
        );
      }
      await audit(request, user.uin, 'recovery_codes_regenerated', {});
      return ok({ recovery_codes: await ctx.secondFactors.regenerateRecoveryCodes(user.uin) });
    },
  );
};
