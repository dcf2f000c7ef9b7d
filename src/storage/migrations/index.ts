import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001-initial.js';
import { securityEvents } from './0002-security-events.js';
import { secondFactor } from './0004-second-factor.js';
import { readiness } from './0006-readiness.js';
import { peopleAudit } from './0005-people-audit.js';
import { sessionsLogout } from './0003-sessions-logout.js';
import { appLauncher } from './0006-app-launcher.js';
import { sharedPendingSignIns } from './0007-shared-pending-sign-ins.js';
import { deviceGrant } from './0014-device-grant.js';

/** Every migration, in order, compiled into the program (no files read at run time). */
const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-initial': initial,
  '0002-security-events': securityEvents,
  '0004-second-factor': secondFactor,
  '0006-readiness': readiness,
  '0005-people-audit': peopleAudit,
  '0003-sessions-logout': sessionsLogout,
  '0006-app-launcher': appLauncher,
  '0007-shared-pending-sign-ins': sharedPendingSignIns,
  '0014-device-grant': deviceGrant,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => ({ ...MIGRATIONS }),
};
