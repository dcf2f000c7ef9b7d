import { Type } from '@sinclair/typebox';
import { adminUserViewOf, listUsers } from '../../../domain/admin-reads.js';
import { USER_GROUPS, type UserGroup } from '../../../shared/users.js';
import { badRequest, notFound } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { listScopeOf } from './principal.js';
import { StringEnum, UinParams } from './schemas.js';
import { pathUin } from './user-fields.js';

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

/**
 * `GET /v1/admin/users` and `GET /v1/admin/users/:uin`: the Users panel (docs/interface.md#admin-api). A
 * helpdesk member or auditor sees only the people of their groups (docs/interface.md#roles).
 */
export const adminUserReadRoutes: RoutePlugin = async (app, { ctx }) => {
  app.get(
    '/v1/admin/users',
    {
      schema: { querystring: UserListQuery },
      config: { permission: { action: 'users.read', target: 'scoped-list' } },
    },
    async (request) => {
      const { search, name, group, tag, offset, limit } = request.query;
      const pageSize = limit === undefined ? DEFAULT_PAGE_SIZE : Number(limit);
      if (pageSize < 1 || pageSize > MAX_PAGE_SIZE)
        throw badRequest(`limit must be from 1 to ${MAX_PAGE_SIZE}`);
      return ok(
        await listUsers(ctx, {
          search: search === '' ? undefined : search,
          name: name?.trim() || undefined,
          group: group === '' ? undefined : group,
          tag: tag === '' ? undefined : tag,
          scope: listScopeOf(request),
          offset: offset === undefined ? 0 : Number(offset),
          limit: pageSize,
        }),
      );
    },
  );

  app.get(
    '/v1/admin/users/:uin',
    { schema: { params: UinParams }, config: { permission: { action: 'users.read', target: 'path-user' } } },
    async (request) => {
      const uin = pathUin(request.params.uin);
      const user = await adminUserViewOf(ctx, uin);
      if (!user) throw notFound(`no user with uin ${uin}`);
      return ok({ user });
    },
  );
};
