/**
 * The directory sync (docs/operations.md#what-the-sync-does): reads everyone the directory holds (a paged
 * search), compares them with the directory users kept here, and plans, then with `apply` makes, the
 * changes: create the people not yet here, update names, emails and groups that changed, disable the directory
 * users the directory no longer has. Never deletes anyone, never touches a local user (not even one whose uin
 * the directory also has), and never re-enables an account (an admin does that).
 *
 * A sync that cannot read the whole directory changes nothing: the listing either arrives whole or throws.
 * It runs one at a time (`Store.exclusive`: an advisory lock on PostgreSQL), so two instances with
 * LDAP_SYNC_INTERVAL, or a timer and `campus-sso ldap sync --apply`, never interleave.
 */
import type { Clock } from '../clock.js';
import type { Store, UserRecord, UserUpdate } from '../storage/store.js';
import type { AuditLog } from './audit.js';
import type { Directory, DirectoryPerson } from './directory.js';
import { newDirectoryUser, profileChanges } from './directory-users.js';
import type { UserService } from './users.js';

/**
 * One change, as `campus-sso ldap sync` prints it (one JSON line each, exactly these two fields:
 * docs/interface.md#command-line).
 */
export interface SyncChange {
  readonly action: 'create' | 'update' | 'disable';
  readonly uin: number;
}

/** Something the sync left alone and says why (printed on standard error). */
export interface SyncWarning {
  readonly warning: string;
  readonly dn?: string;
  readonly uin?: number;
  readonly skipped_groups?: readonly string[];
}

export interface SyncSummary {
  readonly create: number;
  readonly update: number;
  readonly disable: number;
  readonly unchanged: number;
  /** Directory entries left alone: no usable uin, a uin held twice, or a local user's uin. */
  readonly skipped: number;
  readonly applied: boolean;
}

export interface SyncReport {
  readonly changes: readonly SyncChange[];
  readonly warnings: readonly SyncWarning[];
  readonly summary: SyncSummary;
}

/** Why a sync did nothing; `campus-sso ldap sync` exits non-zero with this message. */
export class SyncRefused extends Error {
  override readonly name = 'SyncRefused';
}

interface PlannedChange {
  readonly change: SyncChange;
  readonly person?: DirectoryPerson;
  readonly update?: UserUpdate;
}

export interface DirectorySyncDependencies {
  readonly store: Store;
  readonly clock: Clock;
  readonly users: UserService;
  readonly audit: AuditLog;
  readonly directory: Directory;
}

/**
 * Plans and (with `apply`) makes the sync, one at a time. Throws SyncRefused when the directory cannot be
 * read whole, another sync is running, or the directory answers nobody while directory users exist here
 * (a wrong LDAP_USER_BASE or filter must not disable everyone); nothing is changed then.
 */
export async function syncDirectory(deps: DirectorySyncDependencies, apply: boolean): Promise<SyncReport> {
  const outcome = await deps.store.exclusive('ldap-sync', async () => {
    try {
      const report = await runSync(deps, apply);
      await deps.audit.record({
        action: 'ldap_sync',
        target: `users:${report.changes.length}`,
        detail: { ...report.summary, directory: deps.directory.label, ...changedUins(report.changes) },
      });
      return report;
    } catch (error) {
      await deps.audit.record({
        action: 'ldap_sync',
        outcome: 'failure',
        detail: { applied: false, directory: deps.directory.label, reason: (error as Error).message },
      });
      throw error;
    }
  });
  if (!outcome.ran) throw new SyncRefused('another ldap sync is running; nothing was changed');
  return outcome.value;
}

/** The uins of each kind of change, the first 50 of each, for the audit event. */
function changedUins(changes: readonly SyncChange[]): Record<string, number[]> {
  const uins: Record<string, number[]> = {};
  for (const { action, uin } of changes) {
    const list = (uins[`${action}_uins`] ??= []);
    if (list.length < 50) list.push(uin);
  }
  return uins;
}

async function runSync(deps: DirectorySyncDependencies, apply: boolean): Promise<SyncReport> {
  const { store, directory } = deps;
  let listing: Awaited<ReturnType<Directory['listPeople']>>;
  try {
    listing = await directory.listPeople();
  } catch (error) {
    throw new SyncRefused(
      `the directory could not be read whole (${(error as Error).message}); nothing was changed`,
    );
  }
  const kept = await store.users.listBySource('ldap');
  if (listing.people.length === 0 && kept.some((user) => !user.disabled)) {
    throw new SyncRefused(
      `the directory answered nobody under ${directory.config.userBase} with the filter, but ${kept.length} directory users are kept here; check LDAP_USER_BASE and LDAP_USER_FILTER (nothing was changed)`,
    );
  }
  const keptByUin = new Map(kept.map((user) => [user.uin, user]));
  const newcomers = listing.people.filter((person) => !keptByUin.has(person.uin));
  // A newcomer whose uin a local user holds stays out: local users are never touched.
  const localHolders = new Set((await store.users.findMany(newcomers.map((p) => p.uin))).map((u) => u.uin));

  const warnings: SyncWarning[] = listing.skipped.map(({ dn, reason }) => ({ warning: reason, dn }));
  const planned: PlannedChange[] = [];
  let unchanged = 0;
  for (const person of listing.people) {
    if (person.skippedGroups.length > 0 && !localHolders.has(person.uin)) {
      warnings.push({
        warning: 'groups that are not group tags were skipped',
        uin: person.uin,
        skipped_groups: person.skippedGroups,
      });
    }
    const user = keptByUin.get(person.uin);
    if (user === undefined) {
      if (localHolders.has(person.uin)) {
        warnings.push({ warning: 'a local user holds this uin; left alone', dn: person.dn, uin: person.uin });
        continue;
      }
      planned.push({ change: { action: 'create', uin: person.uin }, person });
      continue;
    }
    const update = profileChanges(user, person);
    if (Object.keys(update).length > 0)
      planned.push({ change: { action: 'update', uin: person.uin }, update });
    else unchanged++;
  }
  const present = new Set(listing.people.map((person) => person.uin));
  for (const user of kept) {
    if (present.has(user.uin)) continue;
    if (user.disabled) unchanged++;
    else planned.push({ change: { action: 'disable', uin: user.uin } });
  }
  if (apply) await applyChanges(deps, planned);

  const count = (action: SyncChange['action']): number =>
    planned.filter((p) => p.change.action === action).length;
  return {
    changes: planned.map((p) => p.change),
    warnings,
    summary: {
      create: count('create'),
      update: count('update'),
      disable: count('disable'),
      unchanged,
      skipped: listing.skipped.length + localHolders.size,
      applied: apply,
    },
  };
}

/**
 * Makes the planned changes, in one domain function so that a store transaction can wrap it whole. A
 * disabled leaver loses their sessions, codes and tokens (UserService.setDisabled).
 */
async function applyChanges(
  deps: DirectorySyncDependencies,
  planned: readonly PlannedChange[],
): Promise<void> {
  for (const { change, person, update } of planned) {
    if (change.action === 'create' && person) {
      const user: UserRecord = newDirectoryUser(person, deps.clock);
      await deps.store.users.insert(user);
    } else if (change.action === 'update' && update) {
      await deps.store.users.update(change.uin, update);
    } else if (change.action === 'disable') {
      await deps.users.setDisabled(change.uin, true);
    }
  }
}

/** Where the scheduled sync reports (the server's logger). */
export interface SyncLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

/**
 * LDAP_SYNC_INTERVAL (docs/operations.md#what-the-sync-does): the sync with `--apply`, every `intervalMs`,
 * the first one an interval after start. Started and stopped by the runtime; `stop` waits for a sync in
 * progress so the database is not closed under it.
 */
export function scheduleDirectorySync(
  deps: DirectorySyncDependencies,
  intervalMs: number,
  log: SyncLog,
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const tick = (): void => {
    if (running) return;
    running = syncDirectory(deps, true)
      .then((report) => {
        // As the command prints them: entries left alone and groups that are no group tags.
        for (const warning of report.warnings) log.warn(warning, 'directory sync: left out');
        log.info({ ldap_sync: report.summary }, 'directory sync done');
      })
      .catch((error: unknown) => log.warn({ reason: (error as Error).message }, 'directory sync did nothing'))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
