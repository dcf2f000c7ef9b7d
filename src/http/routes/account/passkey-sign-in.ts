/**
 * Passwordless sign-in with a passkey alone (docs/interface.md#second-factor); src/domain/sign-in.ts decides.
 */
import { Type } from '@sinclair/typebox';
import type { AuthenticationResponseJSON } from '../../../domain/passkeys.js';
import { passkeySignIn } from '../../../domain/sign-in.js';
import { EnvelopeCode } from '../../../shared/envelope.js';
import { ApiError, tooManyAttempts } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { AuthenticationResponseInput, CeremonyOptions } from './webauthn-schemas.js';
import { Envelope } from '../../response-schemas.js';
import { SignedInViewSchema } from '../../view-schemas.js';
import { PUBLIC } from '../../openapi/security.js';
import { signIn } from './sign-in-session.js';

const PasskeyLoginBody = Type.Object(
  {
    response: AuthenticationResponseInput,
    // docs/interface.md#sessions-and-sign-out: "This is a shared computer", as for a password sign-in.
    shared: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const passkeySignInRoutes: RoutePlugin = async (app, { ctx }) => {
  // Unauthenticated, and each call stores a challenge: limited per address, and the store is bounded
  // (docs/security.md).
  app.post(
    '/v1/account/passkey-login/options',
    { schema: { response: { 200: Envelope(CeremonyOptions) }, security: PUBLIC }, config: { csrf: true } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const retryAfter = await ctx.passkeys.passwordlessOptionsRetryAfter(request.ip);
      if (retryAfter > 0) throw tooManyAttempts(retryAfter);
      return ok(await ctx.passkeys.passwordlessOptions());
    },
  );

  app.post(
    '/v1/account/passkey-login',
    {
      schema: {
        body: PasskeyLoginBody,
        response: { 200: Envelope(SignedInViewSchema, 'Signed in') },
        security: PUBLIC,
      },
      config: { csrf: true },
    },
    async (request, reply) => {
      const result = await passkeySignIn(ctx, request.body.response as AuthenticationResponseJSON);
      if ('refusedUin' in result) {
        request.log.info({ uin: result.refusedUin }, 'passkey sign-in refused');
        throw new ApiError(401, EnvelopeCode.InvalidRequest, 'the passkey could not be verified');
      }
      const { user, amr } = result;
      return ok(await signIn(ctx, request, reply, user, { amr, shared: request.body.shared === true }));
    },
  );
};
