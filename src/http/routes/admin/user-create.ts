import { findUser } from '../../../domain/admin-reads.js';
import { adminUserView } from '../../../domain/users.js';
import { conflict } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { auditAdminOnUser } from './audit-actor.js';
import { checkedEmail, checkedExpiry, checkedGroups, checkedName } from './people.js';
import { NewUserBody, checkedPassword } from './user-fields.js';

/**
 * `POST /v1/admin/users` (docs/interface.md#admin-api): an admin, or a roster job's service token (never an
 * admin then, docs/interface.md#service-accounts), creates one user.
 */
export const adminUserCreateRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/admin/users',
    {
      schema: { body: NewUserBody },
      config: { csrf: true, permission: { action: 'users.create', target: 'new-users' } },
    },
    async (request) => {
      const { uin, password, user_group: group, name, email, groups, expires_at } = request.body;
      checkedPassword(password, uin);
      const profile = {
        name: name === undefined ? null : checkedName(name),
        email: email === undefined ? null : checkedEmail(email),
        groups: groups === undefined ? [] : checkedGroups(groups),
        expiresAt: expires_at === undefined ? null : checkedExpiry(expires_at),
      };
      // Look first so a taken uin costs no password hash; create() still refuses one taken meanwhile. The admin
      // knows the password, so the user must change it at the next sign-in (docs/security.md).
      const created = (await findUser(ctx, uin))
        ? undefined
        : await ctx.users.create(uin, password, group, { ...profile, mustChangePassword: true });
      if (!created) throw conflict(`a user with uin ${uin} already exists`);
      await auditAdminOnUser(ctx, request, 'user_created', uin, {
        user_group: group,
        groups: profile.groups,
      });
      return ok({ user: adminUserView(created) });
    },
  );
};
