import { Type } from '@sinclair/typebox';
import { passwordProblem } from '../../../domain/passwords.js';
import { adminUserView, isValidUin } from '../../../domain/users.js';
import { USER_GROUPS, type UserGroup } from '../../../shared/users.js';
import { badRequest, conflict, notFound } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { currentAdmin, currentAdminSession } from './require-admin.js';
import { StringEnum, UinParams, UserGroupSchema } from './schemas.js';

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 200;

// Query-string values arrive as strings (Ajv does not coerce): numbers are digit strings converted below.
const UserListQuery = Type.Object(
  {
    // A uin has at most 16 digits (2^53−1), so a longer prefix could never match.
    search: Type.Optional(Type.String({ pattern: '^[0-9]{0,16}$' })),
    // An empty `group=` (the page's "all groups") means no filter.
    group: Type.Optional(StringEnum<UserGroup | ''>(['', ...USER_GROUPS])),
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
  },
  { additionalProperties: false },
);

const UserChangesBody = Type.Object(
  {
    user_group: Type.Optional(UserGroupSchema),
    disabled: Type.Optional(Type.Boolean()),
    password: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

function checkedPassword(password: string, uin: number): string {
  const problem = passwordProblem(password, uin);
  if (problem) throw badRequest(problem);
  return password;
}

function pathUin(raw: string): number {
  const uin = Number(raw);
  if (!isValidUin(uin))
    throw badRequest(`uin must be a positive whole number up to ${Number.MAX_SAFE_INTEGER}`);
  return uin;
}

/**
 * `/v1/admin/users…` (without the CSV import): the Users panel of the management page
 * (docs/interface.md#admin-api).
 */
export const adminUserRoutes: RoutePlugin = async (app, { ctx }) => {
  app.get('/v1/admin/users', { schema: { querystring: UserListQuery } }, async (request) => {
    const { search, group, offset, limit } = request.query;
    const pageSize = limit === undefined ? DEFAULT_PAGE_SIZE : Number(limit);
    if (pageSize < 1 || pageSize > MAX_PAGE_SIZE)
      throw badRequest(`limit must be from 1 to ${MAX_PAGE_SIZE}`);
    const page = await ctx.store.users.list({
      search: search === '' ? undefined : search,
      group: group === '' ? undefined : group,
      offset: offset === undefined ? 0 : Number(offset),
      limit: pageSize,
    });
    return ok({ users: page.users.map(adminUserView), total: page.total });
  });

  app.post('/v1/admin/users', { schema: { body: NewUserBody }, config: { csrf: true } }, async (request) => {
    const { uin, password, user_group: group } = request.body;
    checkedPassword(password, uin);
    // Look first so a taken uin costs no password hash; create() still refuses one taken meanwhile. The admin
    // knows the password, so the user must change it at the next sign-in (docs/security.md).
    const created = (await ctx.store.users.find(uin))
      ? undefined
      : await ctx.users.create(uin, password, group, { mustChangePassword: true });
    if (!created) throw conflict(`a user with uin ${uin} already exists`);
    return ok({ user: adminUserView(created) });
  });

  app.patch(
    '/v1/admin/users/:uin',
    { schema: { params: UinParams, body: UserChangesBody }, config: { csrf: true } },
    async (request) => {
      const uin = pathUin(request.params.uin);
      const { user_group: userGroup, disabled, password } = request.body;
      if (userGroup === undefined && disabled === undefined && password === undefined) {
        throw badRequest('send at least one of user_group, disabled, password');
      }
      if (password !== undefined) checkedPassword(password, uin);

      const { session } = currentAdminSession(request);
      const changed = await ctx.users.changeAsAdmin(uin, { userGroup, disabled, password }, session);
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
        case 'changed':
          return ok({ user: adminUserView(changed.user) });
      }
    },
  );
};
