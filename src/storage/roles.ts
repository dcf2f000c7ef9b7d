/**
 * The user_roles table (docs/architecture.md#storage, docs/interface.md#roles): the roles users hold beside
 * `user_group`, one row per user and role, and the SQL that limits a list to a role holder's scope.
 */
import { type ExpressionBuilder, type Expression, type SqlBool, sql } from 'kysely';
import { Repository, parseList } from './connection.js';
import { writeDurably } from './durable-writes.js';
import type { Database } from './schema.js';
import type { RoleRepository, UserScope } from './store.js';
import { type RoleGrant, isRole } from '../shared/roles.js';

/** LIKE's own wildcards in a group tag (`_`) match themselves. */
const likeEscaped = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The users of `scope` (storage/audit-records.ts UserScope), as a condition on a `users` row: carrying one of
 * its `everyoneTags`, or one of its `anyTags` while no admin and holding no role (each tag is stored quoted in
 * the JSON array; tags have no quotes of their own).
 */
export function inScope(eb: ExpressionBuilder<Database, 'users'>, scope: UserScope): Expression<SqlBool> {
  const tagged = (tags: readonly string[]): Expression<SqlBool> =>
    tags.length === 0
      ? sql<SqlBool>`1 = 0`
      : eb.or(tags.map((tag) => sql<SqlBool>`users.groups like ${`%"${likeEscaped(tag)}"%`} escape '\\'`));
  const people = eb.and([
    eb('users.user_group', '!=', 'admin'),
    eb.not(
      eb.exists(
        eb.selectFrom('user_roles').select('user_roles.uin').whereRef('user_roles.uin', '=', 'users.uin'),
      ),
    ),
    tagged(scope.anyTags),
  ]);
  const everyone = scope.everyoneTags ?? [];
  return everyone.length === 0 ? people : eb.or([tagged(everyone), people]);
}

export class UserRoles extends Repository implements RoleRepository {
  async forUser(uin: number): Promise<RoleGrant[]> {
    return (await this.forUsers([uin])).get(uin) ?? [];
  }

  async forUsers(uins: readonly number[]): Promise<Map<number, RoleGrant[]>> {
    const found = new Map<number, RoleGrant[]>();
    if (uins.length === 0) return found;
    const rows = await this.db
      .selectFrom('user_roles')
      .selectAll()
      .where('uin', 'in', [...uins])
      .orderBy('uin')
      .orderBy('role')
      .execute();
    for (const row of rows) {
      if (!isRole(row.role)) continue;
      const uin = Number(row.uin);
      found.set(uin, [...(found.get(uin) ?? []), { role: row.role, groups: parseList(row.groups) }]);
    }
    return found;
  }

  async replace(uin: number, grants: readonly RoleGrant[], at: number): Promise<void> {
    const statements = [this.db.deleteFrom('user_roles').where('uin', '=', uin).compile()];
    for (const grant of grants) {
      statements.push(
        this.db
          .insertInto('user_roles')
          .values({ uin, role: grant.role, groups: JSON.stringify(grant.groups), granted_at: at })
          .compile(),
      );
    }
    await writeDurably(this.connection, statements);
  }
}
