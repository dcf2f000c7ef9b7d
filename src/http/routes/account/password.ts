import { Type } from '@sinclair/typebox';
import { passwordRefusal } from '../../../domain/passwords.js';
import { DIRECTORY_OWNS_PASSWORD, isDirectoryUser } from '../../../domain/directory-users.js';
import { directoryOwnsPassword, passwordRefused } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { PasswordInput } from '../../schemas.js';
import { requireSignedIn } from '../../session-cookie.js';
import { requirePassword } from './password-check.js';
import { EmptyEnvelope } from '../../response-schemas.js';

const ChangePasswordBody = Type.Object(
  { current_password: PasswordInput, new_password: PasswordInput },
  { additionalProperties: false },
);

/**
 * The signed-in user changes their own password, proving the current one first. Their other sessions, codes
 * and tokens end (UserService.changeOwnPassword); this session stays. The one call, with `me` and sign-out,
 * that a user whose password must be changed may make.
 */
export const passwordRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/account/password',
    { schema: { body: ChangePasswordBody, response: { 200: EmptyEnvelope } }, config: { csrf: true } },
    async (request) => {
      const { user, session } = await requireSignedIn(ctx, request, { pendingPasswordChange: 'allowed' });
      // docs/interface.md#the-schools-directory: the directory owns a directory user's password.
      if (isDirectoryUser(user)) throw directoryOwnsPassword(DIRECTORY_OWNS_PASSWORD);
      const refusal = passwordRefusal(request.body.new_password, user.uin);
      if (refusal) throw passwordRefused(refusal, 'new_password');
      await requirePassword(ctx, request, user, request.body.current_password, () =>
        ctx.audit.recordOwn(request, user.uin, 'password_changed', { outcome: 'failure' }),
      );
      // docs/security.md: a password change ends the user's other sessions (and signs their apps out).
      await ctx.users.changeOwnPassword(user.uin, request.body.new_password, session.idHash);
      await ctx.audit.recordOwn(request, user.uin, 'password_changed');
      return ok({});
    },
  );
};
