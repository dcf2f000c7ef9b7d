import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001-initial.js';
import { appLauncher } from './0006-app-launcher.js';

/** Every migration, in order, compiled into the program (no files read at run time). */
const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-initial': initial,
  '0006-app-launcher': appLauncher,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => ({ ...MIGRATIONS }),
};
