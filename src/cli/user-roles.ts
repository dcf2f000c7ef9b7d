/**
 * Roles on the command line (docs/interface.md#roles): `user add … --role helpdesk:class-2026-3` (repeatable)
 * and `user roles --uin N [--role R:TAG …]`, which replaces a user's roles (none given: removes them).
 */
import type { Config } from '../config/config.js';
import { replaceRoles, rolesOf } from '../domain/roles.js';
import { isValidUin } from '../domain/users.js';
import { findUser } from '../domain/admin-reads.js';
import { ROLES, type RoleGrant, mergedGrants, parseRoleOption, rolesProblem } from '../shared/roles.js';
import { type Output, UsageError, parseOptions } from './usage.js';
import { withContext } from './with-store.js';

/** The `--role` options, checked: `helpdesk:class-2026-3`, a role given twice covers both groups. */
export function parsedRoles(options: readonly string[] | undefined): RoleGrant[] {
  const grants: RoleGrant[] = [];
  for (const option of options ?? []) {
    const grant = parseRoleOption(option);
    if (!grant) throw new UsageError(`--role must be ROLE:GROUP with ROLE one of ${ROLES.join(', ')}`);
    grants.push(grant);
  }
  const merged = mergedGrants(grants);
  const problem = rolesProblem(merged);
  if (problem) throw new UsageError(`--role: ${problem}`);
  return merged;
}

export async function userRoles(config: Config, args: string[], out: Output): Promise<void> {
  const values = parseOptions(args, {
    uin: { type: 'string' },
    role: { type: 'string', multiple: true },
  });
  const uin = Number(values.uin);
  if (values.uin === undefined || !/^\d+$/.test(values.uin) || !isValidUin(uin)) {
    throw new UsageError('--uin must be a positive integer up to 2^53-1');
  }
  const grants = parsedRoles(values.role);
  await withContext(config, async (ctx) => {
    if (!(await findUser(ctx, uin))) throw new Error(`no user with uin ${uin}`);
    await replaceRoles(ctx, uin, grants);
    await ctx.audit.record({
      action: 'user_updated',
      target: `user:${uin}`,
      detail: { fields: ['roles'], roles: grants, via: 'cli' },
    });
    out(JSON.stringify({ uin, roles: await rolesOf(ctx, uin) }));
  });
}
