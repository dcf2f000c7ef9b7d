import { type Kysely, type Migration, sql } from 'kysely';

/**
 * An index of the accounts whose password hash still has the previous system's parameters (argon2id
 * `m=65536,t=1,p=2`, kept as they were by the import and re-hashed at each one's next sign-in). It holds only
 * those rows, so it shrinks to nothing as people sign in, and asking whether any is left is one look-up
 * (`Users.hasPreviousSystemHashes`, whose WHERE must stay exactly this predicate for either database to use
 * the index). A refused sign-in verifies a dummy hash with those parameters only while one is left
 * (docs/security.md#browser-sign-in-and-sessions): 64 MiB and both cores for ~13 ms here. It is built in one
 * pass over users.
 */
export const previousSystemHashes: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`create index users_previous_system_hash on users (uin)
      where substr(password_hash, 1, 31) = '$argon2id$v=19$m=65536,t=1,p=2$'`.execute(db);
  },
};
