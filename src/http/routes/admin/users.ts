import type { AppContext } from '../../../app-context.js';
import { Type } from '@sinclair/typebox';
import { passwordRefusal } from '../../../domain/passwords.js';
import { userTarget } from '../../../domain/audit.js';
import { accountLocks } from '../../../domain/login-throttle.js';
import { type UserChanges, adminUserView, isValidUin } from '../../../domain/users.js';
import { USER_GROUPS, type UserGroup } from '../../../shared/users.js';
import { badRequest, conflict, directoryOwnsPassword, notFound, passwordRefused } from '../../api-error.js';
import { DIRECTORY_OWNS_PASSWORD } from '../../../domain/directory-users.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { auditAdminOnUser, currentAdmin, currentAdminSession } from './require-admin.js';
import {
  ExpiresAtSchema,
  GroupListSchema,
  NullableString,
  checkedEmail,
  checkedExpiry,
  checkedGroups,
  checkedName,
} from './people.js';
import { StringEnum, UinParams, UserGroupSchema } from './schemas.js';
import { UserAnswers, UsersAnswers } from './answers.js';

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 200;

// Query-string values arrive as strings (Ajv does not coerce): numbers are digit strings converted below.
const UserListQuery = Type.Object(
  {
    // A uin has at most 16 digits (2^53−1), so a longer prefix could never match.
    search: Type.Optional(Type.String({ pattern: '^[0-9]{0,16}$' })),
    // Part of a display name (docs/interface.md#admin-api), ignoring case; empty: no filter.
    name: Type.Optional(Type.String({ maxLength: 64 })),
    // An empty `group=` (the page's "all groups") means no filter.
    group: Type.Optional(StringEnum<UserGroup | ''>(['', ...USER_GROUPS])),
    // Only users carrying this group tag (empty: no filter).
    tag: Type.Optional(Type.String({ pattern: '^[a-z0-9._-]{0,64}$' })),
    offset: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$' })),
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$' })),
  },
  { additionalProperties: false },
);

const NewUserBody = Type.Object(
  {
    // A JSON integer, positive, at most 2^53−1 (docs/interface.md#resources).
    uin: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    password: Type.String(),
    user_group: UserGroupSchema,
    name: Type.Optional(NullableString(256)),
    email: Type.Optional(NullableString(256)),
    groups: Type.Optional(GroupListSchema),
    expires_at: Type.Optional(ExpiresAtSchema),
  },
  { additionalProperties: false },
);

const UserChangesBody = Type.Object(
  {
    user_group: Type.Optional(UserGroupSchema),
    disabled: Type.Optional(Type.Boolean()),
    password: Type.Optional(Type.String()),
    name: Type.Optional(NullableString(256)),
    email: Type.Optional(NullableString(256)),
    groups: Type.Optional(GroupListSchema),
    expires_at: Type.Optional(ExpiresAtSchema),
  },
  { additionalProperties: false },
);

function checkedPassword(password: string, uin: number): string {
  const refusal = passwordRefusal(password, uin);
  if (refusal) throw passwordRefused(refusal);
  return password;
}

export function pathUin(raw: string): number {
  const uin = Number(raw);
  if (!isValidUin(uin))
    throw badRequest(`uin must be a positive whole number up to ${Number.MAX_SAFE_INTEGER}`);
  return uin;
}

/** The uin of an existing user from the path: 400 when it is not a uin, 404 when nobody has it. */
export async function existingUserUin(ctx: AppContext, raw: string): Promise<number> {
  const uin = pathUin(raw);
  if (!(await ctx.store.users.find(uin))) throw notFound(`no user with uin ${uin}`);
  return uin;
}

/**
 * `/v1/admin/users…` (without the CSV import): the Users panel of the management page
 * (docs/interface.md#admin-api).
 */
export const adminUserRoutes: RoutePlugin = async (app, { ctx }) => {
  app.get(
    '/v1/admin/users',
    { schema: { querystring: UserListQuery, response: UsersAnswers } },
    async (request) => {
      const { search, name, group, tag, offset, limit } = request.query;
      const pageSize = limit === undefined ? DEFAULT_PAGE_SIZE : Number(limit);
      if (pageSize < 1 || pageSize > MAX_PAGE_SIZE)
        throw badRequest(`limit must be from 1 to ${MAX_PAGE_SIZE}`);
      const page = await ctx.store.users.list({
        search: search === '' ? undefined : search,
        name: name?.trim() || undefined,
        group: group === '' ? undefined : group,
        tag: tag === '' ? undefined : tag,
        offset: offset === undefined ? 0 : Number(offset),
        limit: pageSize,
      });
      const uins = page.users.map((user) => user.uin);
      const [locks, factors] = await Promise.all([
        accountLocks(ctx.store, uins, ctx.clock.now()),
        ctx.store.secondFactors.enrolledKinds(uins),
      ]);
      return ok({
        users: page.users.map((user) =>
          adminUserView(user, locks.get(user.uin) ?? null, factors.get(user.uin) ?? []),
        ),
        total: page.total,
      });
    },
  );

  app.post(
    '/v1/admin/users',
    { schema: { body: NewUserBody, response: UserAnswers }, config: { csrf: true } },
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
      const created = (await ctx.store.users.find(uin))
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

  app.patch(
    '/v1/admin/users/:uin',
    { schema: { params: UinParams, body: UserChangesBody, response: UserAnswers }, config: { csrf: true } },
    async (request) => {
      const uin = pathUin(request.params.uin);
      const body = request.body;
      const { user_group: userGroup, disabled, password } = body;
      if (Object.keys(body).length === 0) {
        throw badRequest(
          'send at least one of user_group, disabled, password, name, email, groups, expires_at',
        );
      }
      if (password !== undefined) checkedPassword(password, uin);
      const changes: UserChanges = {
        userGroup,
        disabled,
        password,
        ...(body.name !== undefined && { name: checkedName(body.name) }),
        ...(body.email !== undefined && { email: checkedEmail(body.email) }),
        ...(body.groups !== undefined && { groups: checkedGroups(body.groups) }),
        ...(body.expires_at !== undefined && { expiresAt: checkedExpiry(body.expires_at) }),
      };

      const { session, user: admin } = currentAdminSession(request);
      const changed = await ctx.users.changeAsAdmin(uin, changes, session);
      await ctx.audit.record({
        action: password === undefined ? 'user_updated' : 'password_reset',
        outcome: changed.outcome === 'changed' ? 'success' : 'failure',
        actorUin: admin.uin,
        target: userTarget(uin),
        // Which fields changed, never the password itself.
        detail: {
          fields: Object.keys(body).sort(),
          ...(changed.outcome !== 'changed' && { reason: changed.outcome }),
        },
        request,
      });
      switch (changed.outcome) {
        case 'not-found':
          throw notFound(`no user with uin ${uin}`);
        case 'last-admin': {
          const self = uin === currentAdmin(request).uin ? 'yourself' : `user ${uin}`;
          throw conflict(
            `cannot demote or disable ${self}: the service must keep at least one enabled admin`,
          );
        }
        case 'last-admin-raced':
          throw conflict('cannot demote or disable the last enabled admin');
        case 'directory-password':
          throw directoryOwnsPassword(DIRECTORY_OWNS_PASSWORD);
        case 'changed': {
          const [locks, factors] = await Promise.all([
            accountLocks(ctx.store, [uin], ctx.clock.now()),
            ctx.store.secondFactors.enrolledKinds([uin]),
          ]);
          return ok({ user: adminUserView(changed.user, locks.get(uin) ?? null, factors.get(uin) ?? []) });
        }
      }
    },
  );
};
