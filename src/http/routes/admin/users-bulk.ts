import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import { findUser } from '../../../domain/admin-reads.js';
import type { UserChanges } from '../../../domain/users.js';
import { GROUP_TAG, MAX_GROUPS } from '../../../shared/people.js';
import type { UserGroup } from '../../../shared/users.js';
import { badRequest } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { ExpiresAtSchema, checkedExpiry } from './people.js';
import { auditAdminAction } from './audit-actor.js';
import { actingSessionOf } from './principal.js';
import { StringEnum, UserGroupSchema } from './schemas.js';

/** At most this many users per call: a page of the Users table at its largest, several times over. */
export const MAX_BULK_USERS = 1000;

const BULK_ACTIONS = ['set_group', 'add_tag', 'remove_tag', 'set_expiry', 'disable', 'enable'] as const;
type BulkAction = (typeof BULK_ACTIONS)[number];

const BulkBody = Type.Object(
  {
    uins: Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), {
      minItems: 1,
      maxItems: MAX_BULK_USERS,
    }),
    action: StringEnum<BulkAction>(BULK_ACTIONS),
    /** For set_group. */
    user_group: Type.Optional(UserGroupSchema),
    /** For add_tag and remove_tag. */
    tag: Type.Optional(Type.String({ maxLength: 64 })),
    /** For set_expiry: an ISO 8601 time, or null for never. */
    expires_at: Type.Optional(ExpiresAtSchema),
  },
  { additionalProperties: false },
);

type BulkStatus = 'changed' | 'not_found' | 'error';

interface BulkResult {
  readonly uin: number;
  readonly status: BulkStatus;
  readonly error?: string;
}

/**
 * `POST /v1/admin/users/bulk` (docs/interface.md#people-groups-and-audit): one action on many selected users —
 * change their group, add or remove a group tag, set their expiry, disable or enable them. Each user is
 * changed on their own and answered with their own result; the rule that one enabled admin must remain holds
 * for each, as for a single change.
 */
export const adminUsersBulkRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/admin/users/bulk',
    {
      schema: { body: BulkBody },
      // docs/interface.md#roles: admins, and service tokens on people who are no admin and hold no role.
      config: { csrf: true, permission: { action: 'users.bulk', target: 'body-users' } },
    },
    async (request) => {
      const { uins, action, user_group: userGroup, tag, expires_at } = request.body;
      const changesFor = checkedAction(action, userGroup, tag, expires_at);
      const results = await applyToEach(ctx, request, uins, changesFor);
      const count = (status: BulkStatus): number => results.filter((r) => r.status === status).length;
      await auditAdminAction(ctx, request, {
        action: 'users_bulk',
        outcome: count('changed') > 0 ? 'success' : 'failure',
        target: `users:${results.length}`,
        detail: {
          action,
          ...(userGroup !== undefined && { user_group: userGroup }),
          ...(tag !== undefined && { tag }),
          ...(expires_at !== undefined && { expires_at }),
          changed: count('changed'),
          not_found: count('not_found'),
          errors: count('error'),
          // The first uins, so the event says whom it touched without growing without bound.
          uins: results.slice(0, 50).map((r) => r.uin),
        },
      });
      return ok({ results });
    },
  );
};

/** Changes each user on their own; answers each one's result. */
async function applyToEach(
  ctx: AppContext,
  request: FastifyRequest,
  uins: readonly number[],
  changesFor: (groups: readonly string[]) => UserChanges | { readonly error: string },
): Promise<BulkResult[]> {
  const results: BulkResult[] = [];
  for (const uin of new Set(uins)) {
    const user = await findUser(ctx, uin);
    if (!user) {
      results.push({ uin, status: 'not_found' });
      continue;
    }
    const changes = changesFor(user.groups);
    if ('error' in changes) {
      results.push({ uin, status: 'error', error: changes.error });
      continue;
    }
    const changed = await ctx.users.changeAsAdmin(uin, changes, actingSessionOf(request));
    if (changed.outcome === 'changed') results.push({ uin, status: 'changed' });
    else if (changed.outcome === 'not-found') results.push({ uin, status: 'not_found' });
    else results.push({ uin, status: 'error', error: 'the service must keep at least one enabled admin' });
  }
  return results;
}

/** Checks the action's own field and answers, per user, the change it makes (from their current tags). */
function checkedAction(
  action: BulkAction,
  userGroup: UserGroup | undefined,
  tag: string | undefined,
  expiresAt: string | null | undefined,
): (groups: readonly string[]) => UserChanges | { readonly error: string } {
  switch (action) {
    case 'set_group': {
      if (userGroup === undefined) throw badRequest('set_group needs user_group');
      return () => ({ userGroup });
    }
    case 'add_tag':
    case 'remove_tag': {
      if (tag === undefined || !GROUP_TAG.test(tag)) {
        throw badRequest(`${action} needs tag: 1 to 64 characters of a-z 0-9 . _ -`);
      }
      if (action === 'remove_tag') return (groups) => ({ groups: groups.filter((g) => g !== tag) });
      return (groups) => {
        if (groups.includes(tag)) return { groups };
        if (groups.length >= MAX_GROUPS) return { error: `a user carries at most ${MAX_GROUPS} groups` };
        return { groups: [...groups, tag] };
      };
    }
    case 'set_expiry': {
      if (expiresAt === undefined) throw badRequest('set_expiry needs expires_at (an ISO 8601 time or null)');
      const at = checkedExpiry(expiresAt);
      return () => ({ expiresAt: at });
    }
    case 'disable':
      return () => ({ disabled: true });
    case 'enable':
      return () => ({ disabled: false });
  }
}
