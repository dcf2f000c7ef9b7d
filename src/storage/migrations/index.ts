import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001-initial.js';
import { peopleAudit } from './0005-people-audit.js';

/** Every migration, in order, compiled into the program (no files read at run time). */
const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-initial': initial,
  '0005-people-audit': peopleAudit,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => ({ ...MIGRATIONS }),
};
