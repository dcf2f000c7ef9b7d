/**
 * The signed-in user's own second factors (docs/interface.md#second-factor): TOTP set-up, confirmation and
 * removal, passkeys (register, list, remove) and recovery codes. The first factor enrolled comes with 10
 * recovery codes, answered once; removing the last one voids them.
 */
import { requireSignedIn } from '../../session-cookie.js';
import type { SecondFactorsView } from '../../../shared/views.js';
import { conflict } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { Envelope, EnvelopeOf } from '../../response-schemas.js';
import { SecondFactorsViewSchema } from '../../view-schemas.js';
import { passkeyRoutes } from './passkey-routes.js';
import { PasswordBody, RECOVERY_CODES, passkeyView, secondFactorSteps } from './second-factor-steps.js';
import { totpRoutes } from './totp-routes.js';

export const secondFactorRoutes: RoutePlugin = async (app, { ctx }) => {
  const steps = secondFactorSteps(ctx);
  const { audit, signedInAgain } = steps;
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

  totpRoutes(app, ctx, steps);
  passkeyRoutes(app, ctx, steps);

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
