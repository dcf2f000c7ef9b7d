import type { Config } from '../config/config.js';
import { DatabaseFileError, backupSqlite, restoreSqlite } from '../ops/sqlite-maintenance.js';
import { type Output, UsageError } from './usage.js';

/** PostgreSQL has its own tools; this is what docs/operations.md#backups recommends. */
const POSTGRES_RECIPE = {
  backup: 'pg_dump --format=custom --file=FILE "$DATABASE_URL"',
  restore: 'pg_restore --clean --if-exists --no-owner --single-transaction --dbname="$DATABASE_URL" FILE',
};

function oneFile(command: 'backup' | 'restore', args: string[]): string {
  const [file, ...extra] = args;
  if (file === undefined || file.startsWith('-')) throw new UsageError(`${command} needs a FILE`);
  if (extra.length > 0) throw new UsageError(`${command} takes one FILE, got "${extra.join(' ')}" too`);
  return file;
}

function sqliteFile(config: Config, command: 'backup' | 'restore'): string {
  if (config.database.kind === 'sqlite') return config.database.file;
  throw new DatabaseFileError(
    `${command} copies SQLite files; for PostgreSQL stop the servers (for a restore) and run: ${POSTGRES_RECIPE[command]}`,
  );
}

/** `campus-sso backup FILE`: prints {"backup","bytes","ms"}. Safe while the server runs. */
export async function backupCommand(config: Config, args: string[], out: Output): Promise<void> {
  const file = oneFile('backup', args);
  out(JSON.stringify(backupSqlite(sqliteFile(config, 'backup'), file)));
}

/** `campus-sso restore FILE`: prints {"restored","from","integrity"}. Refused while a server runs. */
export async function restoreCommand(config: Config, args: string[], out: Output): Promise<void> {
  const file = oneFile('restore', args);
  out(JSON.stringify(restoreSqlite(sqliteFile(config, 'restore'), file)));
}
