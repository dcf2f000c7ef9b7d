import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import { adminUserViewOf, findUser } from '../../../domain/admin-reads.js';
import { DIRECTORY_OWNS_PASSWORD, isDirectoryUser } from '../../../domain/directory-users.js';
import { type AdminChangeOutcome, type UserChanges } from '../../../domain/users.js';
import { badRequest, conflict, directoryOwnsPassword, notFound } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { auditAdminOnUser } from './audit-actor.js';
import { checkedEmail, checkedExpiry, checkedGroups, checkedName } from './people.js';
import { actingSessionOf, actorOf } from './principal.js';
import { UinParams } from './schemas.js';
import { UserChangesBody, checkedPassword, pathUin } from './user-fields.js';
import { UserAnswers } from './answers.js';

type Body = typeof UserChangesBody.static;

/**
 * The changes of the body, checked. A directory user's password is not checked against the rule: it is
 * refused whatever it is, with where to change it (UserService.changeAsAdmin).
 */
function userChanges(body: Body, uin: number, directoryUser: boolean): UserChanges {
  if (body.password !== undefined && !directoryUser) checkedPassword(body.password, uin);
  return {
    userGroup: body.user_group,
    disabled: body.disabled,
    password: body.password,
    ...(body.name !== undefined && { name: checkedName(body.name) }),
    ...(body.email !== undefined && { email: checkedEmail(body.email) }),
    ...(body.groups !== undefined && { groups: checkedGroups(body.groups) }),
    ...(body.expires_at !== undefined && { expiresAt: checkedExpiry(body.expires_at) }),
    ...(body.roles !== undefined && { roles: body.roles }),
  };
}

/** The error for a change that did not happen. */
function refusalOf(
  outcome: Exclude<AdminChangeOutcome['outcome'], 'changed'>,
  uin: number,
  self: boolean,
): Error {
  switch (outcome) {
    case 'not-found':
      return notFound(`no user with uin ${uin}`);
    case 'last-admin':
      return conflict(
        `cannot demote or disable ${self ? 'yourself' : `user ${uin}`}: the service must keep at least one enabled admin`,
      );
    case 'last-admin-raced':
      return conflict('cannot demote or disable the last enabled admin');
    case 'directory-password':
      return directoryOwnsPassword(DIRECTORY_OWNS_PASSWORD);
  }
}

/** Applies the changes in one transaction, audited; throws when they did not happen. */
async function changeAccount(
  ctx: AppContext,
  request: FastifyRequest,
  uin: number,
  body: Body,
): Promise<void> {
  const target = body.password === undefined ? undefined : await findUser(ctx, uin);
  const directoryUser = target !== undefined && isDirectoryUser(target);
  const changed = await ctx.users.changeAsAdmin(
    uin,
    userChanges(body, uin, directoryUser),
    actingSessionOf(request),
  );
  await auditAdminOnUser(ctx, request, body.password === undefined ? 'user_updated' : 'password_reset', uin, {
    // Which fields changed, never the password itself.
    fields: Object.keys(body).sort(),
    ...(changed.outcome === 'changed' && changed.roles !== undefined && { roles: changed.roles }),
    ...(changed.outcome !== 'changed' && { reason: changed.outcome }),
  });
  if (changed.outcome !== 'changed') throw refusalOf(changed.outcome, uin, actorOf(request).actorUin === uin);
}

/**
 * `PATCH /v1/admin/users/:uin` (docs/interface.md#admin-api): an admin changes a user's group, state, profile,
 * password or roles (docs/interface.md#roles); a helpdesk member sets a password for one of their people (who
 * must change it at the next sign-in); a service token changes a user who is no admin and holds no role. The
 * gate (./authorize.ts) decides which fields each may send.
 */
export const adminUserChangeRoutes: RoutePlugin = async (app, { ctx }) => {
  app.patch(
    '/v1/admin/users/:uin',
    {
      schema: { params: UinParams, body: UserChangesBody, response: UserAnswers },
      config: { csrf: true, permission: { action: 'users.change', target: 'path-user' } },
    },
    async (request) => {
      const uin = pathUin(request.params.uin);
      if (Object.keys(request.body).length === 0) {
        throw badRequest(
          'send at least one of user_group, disabled, password, name, email, groups, expires_at, roles',
        );
      }
      await changeAccount(ctx, request, uin, request.body);
      const user = await adminUserViewOf(ctx, uin);
      if (!user) throw notFound(`no user with uin ${uin}`);
      return ok({ user });
    },
  );
};
