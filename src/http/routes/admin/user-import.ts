import { Type } from '@sinclair/typebox';
import { importUsers, MAX_IMPORT_ROWS } from '../../../domain/admin-user-import.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';

/**
 * The rows' shape is checked here (an array of objects with a line number and no unknown fields); the values
 * are checked row by row in the domain, so one bad row gets its own error instead of failing the chunk.
 */
const ImportBody = Type.Object(
  {
    rows: Type.Array(
      Type.Object(
        {
          line: Type.Integer({ minimum: 0 }),
          uin: Type.Optional(Type.Unknown()),
          password: Type.Optional(Type.Unknown()),
          user_group: Type.Optional(Type.Unknown()),
        },
        { additionalProperties: false },
      ),
      { maxItems: MAX_IMPORT_ROWS },
    ),
  },
  { additionalProperties: false },
);

/** 500 rows of long passwords fit in well under 1 MiB. */
const IMPORT_BODY_LIMIT = 1024 * 1024;

/**
 * `POST /v1/admin/users/import`: one chunk of the management page's CSV import (docs/interface.md#admin-api).
 */
export const adminUserImportRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/admin/users/import',
    { schema: { body: ImportBody }, config: { csrf: true }, bodyLimit: IMPORT_BODY_LIMIT },
    async (request) => ok({ results: await importUsers(ctx.store, ctx.users, request.body.rows) }),
  );
};
