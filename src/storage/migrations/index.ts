import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001-initial.js';
import { securityEvents } from './0002-security-events.js';
import { secondFactor } from './0004-second-factor.js';
import { readiness } from './0006-readiness.js';
import { peopleAudit } from './0005-people-audit.js';
import { sessionsLogout } from './0003-sessions-logout.js';
import { appLauncher } from './0006-app-launcher.js';
import { sharedPendingSignIns } from './0007-shared-pending-sign-ins.js';
import { secondFactorTrust } from './0009-second-factor-trust.js';
import { cas } from './0012-cas.js';
import { userSource } from './0013-user-source.js';
import { deviceGrant } from './0014-device-grant.js';
import { roles } from './0015-roles.js';
import { serviceAccounts } from './0016-service-accounts.js';
import { roomForHotUpdates } from './0017-room-for-hot-updates.js';
import { previousSystemHashes } from './0018-previous-system-hashes.js';

/**
 * Every migration, compiled into the program (no files read at run time), in the order they landed. Kysely
 * runs the pending ones by name whatever ran before, so each is order-independent and a landed one is never
 * renamed or edited (docs/architecture.md#migrations).
 */
const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-initial': initial,
  '0002-security-events': securityEvents,
  '0004-second-factor': secondFactor,
  '0006-readiness': readiness,
  '0005-people-audit': peopleAudit,
  '0003-sessions-logout': sessionsLogout,
  '0006-app-launcher': appLauncher,
  '0007-shared-pending-sign-ins': sharedPendingSignIns,
  '0009-second-factor-trust': secondFactorTrust,
  '0012-cas': cas,
  '0013-user-source': userSource,
  '0014-device-grant': deviceGrant,
  '0015-roles': roles,
  '0016-service-accounts': serviceAccounts,
  '0017-room-for-hot-updates': roomForHotUpdates,
  '0018-previous-system-hashes': previousSystemHashes,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => ({ ...MIGRATIONS }),
};
