import { Type } from '@sinclair/typebox';
import { importUsers, MAX_IMPORT_ROWS } from '../../../domain/admin-user-import.js';
import { RESET_CODE_MAX_DAYS, RESET_CODE_MIN_DAYS } from '../../../domain/reset-codes.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { IMPORT_COLUMNS } from '../../../shared/people.js';
import { optional } from '../../schemas.js';
import { ImportAnswers } from './answers.js';
import { auditAdminAction } from './audit-actor.js';

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
          // Any JSON: each cell is checked by the import, which names the line and the column.
          ...optional(Type.Unknown(), ...IMPORT_COLUMNS),
        },
        { additionalProperties: false },
      ),
      { maxItems: MAX_IMPORT_ROWS },
    ),
    // How long the reset codes of rows without a password stay valid, in days (without it, 24 hours).
    reset_code_days: Type.Optional(
      Type.Integer({ minimum: RESET_CODE_MIN_DAYS, maximum: RESET_CODE_MAX_DAYS }),
    ),
  },
  { additionalProperties: false },
);

/** 500 rows of long passwords and profiles fit in well under 1 MiB. */
const IMPORT_BODY_LIMIT = 1024 * 1024;

/** `POST /v1/admin/users/import`: one chunk of the management page's CSV import (docs/interface.md#admin-api). */
export const adminUserImportRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/admin/users/import',
    {
      schema: { body: ImportBody, response: ImportAnswers },
      // docs/interface.md#service-tokens-at-the-admin-api: a roster job's token may import people, never admins.
      config: { csrf: true, permission: { action: 'users.create', target: 'new-users' } },
      bodyLimit: IMPORT_BODY_LIMIT,
    },
    async (request) => {
      const days = request.body.reset_code_days;
      const results = await importUsers(ctx, request.body.rows, { resetCodeDays: days });
      const count = (status: string): number => results.filter((r) => r.status === status).length;
      const withCodes = results.filter((r) => r.reset_code !== undefined);
      // One event per code, so "who gave this student a reset code?" is answered by their uin.
      for (const row of withCodes) {
        await auditAdminAction(ctx, request, {
          action: 'reset_code_issued',
          target: `user:${String(row.uin)}`,
          detail: { via: 'import', ...(days !== undefined && { days }) },
        });
      }
      await auditAdminAction(ctx, request, {
        action: 'users_imported',
        target: `users:${results.length}`,
        detail: {
          rows: results.length,
          created: count('created'),
          exists: count('exists'),
          errors: count('error'),
          codes_issued: withCodes.length,
          // Whom it created, so "who made this account?" has an answer.
          uins: results.filter((r) => r.status === 'created').map((r) => r.uin),
        },
      });
      return ok({ results });
    },
  );
};
