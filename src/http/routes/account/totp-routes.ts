/** TOTP set-up, confirmation and removal (docs/interface.md#second-factor). */
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.js';
import { AMR } from '../../../domain/amr.js';
import { TOTP_CODE_PATTERN } from '../../../shared/totp.js';
import { badRequest, conflict, notFound } from '../../api-error.js';
import { EmptyEnvelope, EnvelopeOf } from '../../response-schemas.js';
import { ok } from '../../responses.js';
import {
  PasswordAgainBody,
  PasswordBody,
  RECOVERY_CODES,
  type SecondFactorApp,
  type SecondFactorSteps,
  emptyBodyIsNone,
} from './second-factor-steps.js';

const TotpSetupAnswers = {
  200: EnvelopeOf({ secret: Type.String(), otpauth_uri: Type.String() }, 'The secret, to show as a QR code'),
};
/** Recovery codes come with the account's first factor only. */
const RecoveryCodesAnswers = {
  200: EnvelopeOf({ recovery_codes: Type.Optional(RECOVERY_CODES.recovery_codes) }),
};
const CodeBody = Type.Object(
  { code: Type.String({ pattern: TOTP_CODE_PATTERN }) },
  { additionalProperties: false },
);
/** Adds the TOTP routes to `app`. */
export function totpRoutes(app: SecondFactorApp, ctx: AppContext, steps: SecondFactorSteps): void {
  const { audit, enrol, signedInAgain, signedInRecently } = steps;

  app.post(
    '/v1/account/totp/setup',
    {
      schema: { body: PasswordAgainBody, response: TotpSetupAnswers },
      config: { csrf: true },
      ...emptyBodyIsNone,
    },
    async (request) => {
      const { user } = await signedInRecently(request, request.body?.password);
      const setup = await ctx.totp.setup(user.uin);
      if (!setup) throw conflict('an authenticator app is set up already: remove it first');
      return ok({ secret: setup.secret, otpauth_uri: setup.otpauthUri });
    },
  );

  app.post(
    '/v1/account/totp/confirm',
    { schema: { body: CodeBody, response: RecoveryCodesAnswers }, config: { csrf: true } },
    async (request) => {
      const { recovery } = await enrol(
        request,
        async (user) => {
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
}
