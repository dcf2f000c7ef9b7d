import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001-initial.js';
import { sessionsLogout } from './0003-sessions-logout.js';

/** Every migration, in order, compiled into the program (no files read at run time). */
const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-initial': initial,
  '0003-sessions-logout': sessionsLogout,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => ({ ...MIGRATIONS }),
};
