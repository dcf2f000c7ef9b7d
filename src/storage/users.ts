/**
 * The users table: its queries and its row mapper (docs/architecture.md#storage). `find` is on the hot path
 * of the code exchange and of user information, so it is a hand-written statement per database. Writes are
 * on disk before they are answered (`writeDurably`).
 */
import { type Selectable, sql } from 'kysely';
import type { HotPath } from './connection.js';
import { Repository, bit, forDialect, preparedLookup, writeDurably } from './connection.js';
import type { Database } from './schema.js';
import type { UserGroup, UserListQuery, UserRecord, UserRepository } from './store.js';

export type UserRow = Selectable<Database['users']>;

export function toUser(row: UserRow): UserRecord {
  return {
    uin: Number(row.uin),
    passwordHash: row.password_hash,
    userGroup: row.user_group as UserGroup,
    createdAt: Number(row.created_at),
    disabled: row.disabled === 1,
    mustChangePassword: row.must_change_password === 1,
  };
}

type FindUser = (uin: number) => Promise<UserRecord | undefined>;

const findUser: HotPath<FindUser> = {
  sqlite(database) {
    return preparedLookup(database, 'select * from users where uin = ?', toUser);
  },
  postgres(pool) {
    return async (uin) => {
      const { rows } = await pool.query<UserRow>({
        name: 'campus_sso_find_user',
        text: 'select * from users where uin = $1',
        values: [uin],
      });
      return rows[0] && toUser(rows[0]);
    };
  },
};

export class Users extends Repository implements UserRepository {
  /** By findUser's statement for this database. */
  readonly find = forDialect(this.connection, findUser);

  async insert(user: UserRecord): Promise<boolean> {
    const query = this.db
      .insertInto('users')
      .values({
        uin: user.uin,
        password_hash: user.passwordHash,
        user_group: user.userGroup,
        created_at: user.createdAt,
        disabled: bit(user.disabled),
        must_change_password: bit(user.mustChangePassword),
      })
      .onConflict((oc) => oc.column('uin').doNothing());
    const [inserted = 0] = await writeDurably(this.connection, [query.compile()]);
    return inserted > 0;
  }

  async update(
    uin: number,
    changes: Partial<Pick<UserRecord, 'passwordHash' | 'userGroup' | 'disabled' | 'mustChangePassword'>>,
  ): Promise<boolean> {
    const set: Partial<Database['users']> = {};
    if (changes.passwordHash !== undefined) set.password_hash = changes.passwordHash;
    if (changes.userGroup !== undefined) set.user_group = changes.userGroup;
    if (changes.disabled !== undefined) set.disabled = bit(changes.disabled);
    if (changes.mustChangePassword !== undefined) set.must_change_password = bit(changes.mustChangePassword);
    if (Object.keys(set).length === 0) return (await this.find(uin)) !== undefined;
    const query = this.db.updateTable('users').set(set).where('uin', '=', uin);
    const [updated = 0] = await writeDurably(this.connection, [query.compile()]);
    return updated > 0;
  }

  async list(query: UserListQuery): Promise<{ users: UserRecord[]; total: number }> {
    let base = this.db.selectFrom('users');
    if (query.search) {
      // A uin prefix: compare the decimal text, the same on both databases.
      base = base.where(sql<string>`cast(uin as text)`, 'like', `${query.search.replace(/\D/g, '')}%`);
    }
    if (query.group) base = base.where('user_group', '=', query.group);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('uin').limit(query.limit).offset(query.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { users: rows.map(toUser), total: Number(count.n) };
  }

  async countAdmins(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_group', '=', 'admin')
      .where('disabled', '=', 0)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
