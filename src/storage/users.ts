/**
 * The users table: its queries and its row mapper (docs/architecture.md#storage). `find` is on the hot path
 * of the code exchange and of user information, so it is a hand-written statement per database. Writes are
 * on disk before they are answered (`writeDurably`).
 */
import { sql } from 'kysely';
import type { HotPath } from './connection.js';
import { Repository, forDialect, nullableNumber, parseList } from './connection.js';
import { preparedLookup } from './hot-path-statements.js';
import { insertDurablyIfAbsent, updateDurably } from './durable-writes.js';
import { columns } from './columns.js';
import type { Row } from './schema.js';
import { inScope } from './roles.js';
import type {
  NewUserRecord,
  UserGroup,
  UserListQuery,
  UserRecord,
  UserRepository,
  UserSource,
  UserUpdate,
} from './store.js';

export type UserRow = Row<'users'>;

export function toUser(row: UserRow): UserRecord {
  return {
    uin: Number(row.uin),
    passwordHash: row.password_hash,
    userGroup: row.user_group as UserGroup,
    createdAt: Number(row.created_at),
    disabled: row.disabled === 1,
    mustChangePassword: row.must_change_password === 1,
    name: row.name ?? null,
    email: row.email ?? null,
    groups: parseList(row.groups),
    expiresAt: nullableNumber(row.expires_at),
    lastSignInAt: nullableNumber(row.last_sign_in_at),
    // Absent only in a database the 0013 migration has not reached yet (a restore in progress).
    source: row.source === 'ldap' ? 'ldap' : 'local',
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

/** A new user's row: what NewUserRecord leaves out takes its default. */
function newUserRow(user: NewUserRecord): Row<'users'> {
  const {
    name = null,
    email = null,
    groups = [],
    expiresAt = null,
    lastSignInAt = null,
    source = 'local',
    ...fields
  } = user;
  return columns({ ...fields, name, email, groups, expiresAt, lastSignInAt, source });
}

/**
 * The predicate of the index 0018 made, word for word: SQLite and PostgreSQL use a partial index only for a
 * query whose WHERE states its predicate (a hash of the previous system's parameters, `m=65536,t=1,p=2`).
 */
export const PREVIOUS_SYSTEM_HASHES_ONLY = "substr(password_hash, 1, 31) = '$argon2id$v=19$m=65536,t=1,p=2$'";

/** The advisory lock key that serializes changes that may take away an admin (lockAdminChanges). */
const ADMIN_CHANGES_LOCK = 0x63_73_61_64; // "csad"

/** LIKE's own wildcards in a group tag (`_`) match themselves. */
const likeEscaped = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export class Users extends Repository implements UserRepository {
  /** By findUser's statement for this database. */
  readonly find = forDialect(this.connection, findUser);

  insert(user: NewUserRecord): Promise<boolean> {
    return insertDurablyIfAbsent(this.connection, 'users', 'uin', newUserRow(user));
  }

  update(uin: number, changes: UserUpdate): Promise<boolean> {
    return updateDurably(this.connection, 'users', 'uin', uin, columns(changes));
  }

  async list(query: UserListQuery): Promise<{ users: UserRecord[]; total: number }> {
    let base = this.db.selectFrom('users');
    if (query.search) {
      // A uin prefix: compare the decimal text, the same on both databases.
      base = base.where(sql<string>`cast(uin as text)`, 'like', `${query.search.replace(/\D/g, '')}%`);
    }
    if (query.name) {
      // Contains, ignoring (ASCII) case, the same on both databases (PostgreSQL's like is case-sensitive).
      const pattern = `%${likeEscaped(query.name.toLowerCase())}%`;
      base = base.where(sql<boolean>`lower(name) like ${pattern} escape '\\'`);
    }
    if (query.group) base = base.where('user_group', '=', query.group);
    const scope = query.scope;
    if (scope) base = base.where((eb) => inScope(eb, scope));
    if (query.tag) {
      // The JSON array holds each tag quoted; tags have no quotes or backslashes of their own.
      base = base.where(sql<boolean>`groups like ${`%"${likeEscaped(query.tag)}"%`} escape '\\'`);
    }
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('uin').limit(query.limit).offset(query.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { users: rows.map(toUser), total: Number(count.n) };
  }

  listBySource(source: UserSource): Promise<UserRecord[]> {
    return this.listBy('users', 'source', source, 'uin', toUser);
  }

  async countAdmins(now?: number, { lasting = false }: { readonly lasting?: boolean } = {}): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_group', '=', 'admin')
      .where('disabled', '=', 0)
      .where((eb) => {
        if (lasting) return eb('expires_at', 'is', null);
        if (now === undefined) return eb.lit(true);
        return eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]);
      })
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async lockAdminChanges(): Promise<void> {
    if (this.connection.kind !== 'postgres') return;
    // Any fixed key of this application's own: 'campus-sso admins' as a 32-bit number.
    await sql`select pg_advisory_xact_lock(${ADMIN_CHANGES_LOCK})`.execute(this.db);
  }

  async recordSignIn(uin: number, at: number): Promise<void> {
    await this.db.updateTable('users').set({ last_sign_in_at: at }).where('uin', '=', uin).execute();
  }

  async findMany(uins: readonly number[]): Promise<UserRecord[]> {
    if (uins.length === 0) return [];
    const rows = await this.db
      .selectFrom('users')
      .selectAll()
      .where('uin', 'in', [...uins])
      .execute();
    return rows.map(toUser);
  }

  /** One look-up in the index of only those hashes (PREVIOUS_SYSTEM_HASHES_ONLY). */
  async hasPreviousSystemHashes(): Promise<boolean> {
    const query = sql`select 1 as found from users where ${sql.raw(PREVIOUS_SYSTEM_HASHES_ONLY)} limit 1`;
    return (await query.execute(this.db)).rows.length > 0;
  }

  async listDormant(before: number, limit: number): Promise<UserRecord[]> {
    const lastSeen = sql<number>`coalesce(last_sign_in_at, created_at)`;
    const rows = await this.db
      .selectFrom('users')
      .selectAll()
      .where('disabled', '=', 0)
      .where(lastSeen, '<', before)
      .orderBy(lastSeen)
      .orderBy('uin')
      .limit(limit)
      .execute();
    return rows.map(toUser);
  }
}
