import { Type } from '@sinclair/typebox';
import { userTarget } from '../../../domain/audit.js';
import { passwordRefusal } from '../../../domain/passwords.js';
import { isActiveUser, isValidUin } from '../../../domain/users.js';
import { DIRECTORY_OWNS_PASSWORD, isDirectoryUser } from '../../../domain/directory-users.js';
import {
  ApiError,
  badRequest,
  directoryOwnsPassword,
  passwordRefused,
  tooManyAttempts,
} from '../../api-error.js';
import { EnvelopeCode } from '../../../shared/envelope.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { PasswordInput, UinInput } from '../../schemas.js';
import { EmptyEnvelope } from '../../response-schemas.js';
import { PUBLIC } from '../../openapi/security.js';

const PasswordResetBody = Type.Object(
  {
    uin: UinInput,
    // 12 characters, perhaps typed with spaces or dashes between the groups.
    code: Type.String({ minLength: 1, maxLength: 64 }),
    new_password: PasswordInput,
  },
  { additionalProperties: false },
);

/** The one answer for an unknown uin, a wrong or used code, and an account that may not sign in. */
const wrongCode = (): ApiError => new ApiError(401, EnvelopeCode.InvalidRequest, 'wrong uin or reset code');

/**
 * `POST /v1/account/password-reset` (docs/interface.md#people-groups-and-audit): a person without email redeems
 * the one-time code an admin gave them and chooses a new password on `#/reset`. Throttled like a sign-in
 * (the code is a password guess like any other); success ends every session and token of the account.
 */
export const passwordResetRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/account/password-reset',
    {
      schema: { body: PasswordResetBody, response: { 200: EmptyEnvelope }, security: PUBLIC },
      config: { csrf: true },
    },
    async (request) => {
      const uin = Number(request.body.uin);
      if (!isValidUin(uin)) throw badRequest('uin must be a positive integer up to 2^53-1');
      // The same rule as every other way of setting a password, the uin included (docs/security.md); told
      // after a directory user is told where their password is changed.
      const refusal = passwordRefusal(request.body.new_password, uin);

      const attempt = await ctx.loginThrottle.begin(uin, request.ip);
      if (attempt.retryAfter > 0) {
        // One event per lock, not per request (docs/security.md).
        if (await ctx.loginThrottle.firstRefusal(attempt)) {
          await ctx.audit.record({
            action: 'reset_code_redeemed',
            outcome: 'locked',
            target: userTarget(uin),
            request,
          });
        }
        throw tooManyAttempts(attempt.retryAfter);
      }
      const user = await ctx.users.find(uin);
      // docs/interface.md#the-schools-directory: a directory user's password is reset in the directory. Not a
      // guess at a code, so not counted.
      if (user && isDirectoryUser(user)) {
        await ctx.loginThrottle.notChecked(attempt);
        throw directoryOwnsPassword(DIRECTORY_OWNS_PASSWORD);
      }
      // A password the rule refuses was no guess at the code either.
      if (refusal) {
        await ctx.loginThrottle.notChecked(attempt);
        throw passwordRefused(refusal, 'new_password');
      }
      // A disabled or expired account keeps its code: an admin who enables it again need not issue another.
      // The code is used up in the transaction that sets the password and ends the old one's access.
      const redeemed =
        user !== undefined &&
        isActiveUser(user, ctx.clock.now()) &&
        (await ctx.users.resetPassword(uin, request.body.new_password, (tx) =>
          ctx.resetCodes.redeem(uin, request.body.code, tx),
        ));
      if (!redeemed) {
        await ctx.loginThrottle.failed(attempt);
        await ctx.audit.record({
          action: 'reset_code_redeemed',
          outcome: 'failure',
          target: userTarget(uin),
          request,
        });
        throw wrongCode();
      }
      await ctx.loginThrottle.succeeded(attempt);
      await ctx.audit.recordOwn(request, uin, 'reset_code_redeemed');
      return ok({});
    },
  );
};
