/** Passkeys: register, list, remove (docs/interface.md#second-factor). */
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.js';
import { passkeyMethod } from '../../../domain/amr.js';
import { PasskeyError, type RegistrationResponseJSON } from '../../../domain/passkeys.js';
import type { PasskeyRecord } from '../../../storage/store.js';
import { badRequest, notFound } from '../../api-error.js';
import { EmptyEnvelope, Envelope, EnvelopeOf } from '../../response-schemas.js';
import { ok } from '../../responses.js';
import { requireSignedIn } from '../../session-cookie.js';
import { PasskeyViewSchema } from '../../view-schemas.js';
import {
  PasswordAgainBody,
  RECOVERY_CODES,
  type SecondFactorApp,
  type SecondFactorSteps,
  emptyBodyIsNone,
  passkeyView,
} from './second-factor-steps.js';
import { CeremonyOptions, RegistrationResponseInput } from './webauthn-schemas.js';

const PasskeyAddedAnswers = {
  200: EnvelopeOf({
    passkey: PasskeyViewSchema,
    recovery_codes: Type.Optional(RECOVERY_CODES.recovery_codes),
  }),
};
const PasskeysAnswers = { 200: EnvelopeOf({ passkeys: Type.Array(PasskeyViewSchema) }) };

const PasskeyBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 64 }), response: RegistrationResponseInput },
  { additionalProperties: false },
);
const PasskeyParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });
/** Adds the passkey routes to `app`. */
export function passkeyRoutes(app: SecondFactorApp, ctx: AppContext, steps: SecondFactorSteps): void {
  const { audit, enrol, signedInRecently } = steps;

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
      const { user } = await signedInRecently(request, request.body?.password);
      return ok(await ctx.passkeys.registrationOptions(user.uin));
    },
  );

  app.post(
    '/v1/account/passkeys',
    { schema: { body: PasskeyBody, response: PasskeyAddedAnswers }, config: { csrf: true } },
    async (request) => {
      const { added, recovery } = await enrol(
        request,
        async (user): Promise<PasskeyRecord> => {
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
      const { user } = await signedInRecently(request, request.body?.password);
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
}
