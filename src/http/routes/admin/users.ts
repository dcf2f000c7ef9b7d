import { Type } from '@sinclair/typebox';
import { adminUserView, removesAnAdmin, wouldRemoveLastAdmin } from '../../../domain/admin-users.js';
import { passwordProblem } from '../../../domain/passwords.js';
import { isValidUin } from '../../../domain/users.js';
import { USER_GROUPS, type UserGroup, type UserRecord } from '../../../storage/store.js';
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
    // SPEC §1: a JSON integer, positive, at most 2^53−1.
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

/** `/v1/admin/users…` (without the CSV import): the Users panel of the management page (SPEC §7). */
export const adminUserRoutes: RoutePlugin = async (app, { ctx }) => {
  async function findUser(uin: number): Promise<UserRecord> {
    const user = await ctx.store.users.find(uin);
    if (!user) throw notFound(`no user with uin ${uin}`);
    return user;
  }

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
    // Look first so a taken uin costs no password hash; create() still refuses one taken meanwhile.
    const created = (await ctx.store.users.find(uin))
      ? undefined
      : await ctx.users.create(uin, password, group);
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

      const user = await findUser(uin);
      const changes = { userGroup, disabled };
      if (await wouldRemoveLastAdmin(ctx.store, user, changes)) {
        const self = user.uin === currentAdmin(request).uin ? 'yourself' : `user ${uin}`;
        throw conflict(`cannot demote or disable ${self}: the service must keep at least one enabled admin`);
      }

      if (userGroup !== undefined) await ctx.store.users.update(uin, { userGroup });
      // Disabling signs the user out everywhere; their tokens stop working at the next look-up.
      if (disabled !== undefined) await ctx.users.setDisabled(uin, disabled);

      // Two admins demoting each other at once could each see the other still enabled: check again after
      // writing and put this change back if it left no enabled admin (before the password, so a refused
      // call changes nothing).
      if (removesAnAdmin(user, changes) && (await ctx.store.users.countAdmins()) === 0) {
        await ctx.store.users.update(uin, { userGroup: user.userGroup, disabled: user.disabled });
        throw conflict('cannot demote or disable the last enabled admin');
      }
      if (password !== undefined) {
        await ctx.users.setPassword(uin, password);
        // A reset usually follows a compromise: whoever held the old password is signed out everywhere —
        // except the admin making this call, when they reset their own.
        await ctx.store.sessions.deleteForUser(uin, currentAdminSession(request).session.idHash);
      }
      return ok({ user: adminUserView(await findUser(uin)) });
    },
  );
};
