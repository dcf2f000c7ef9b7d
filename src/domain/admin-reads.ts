/**
 * What the admin API reads (docs/interface.md#admin-api): users as the Users panel shows them (their lock,
 * second factors and roles beside the record), apps with their queued back-channel logouts, audit pages.
 * The routes call these, never the store.
 */
import type { Clock } from '../clock.js';
import type { AdminUserView, AppView } from '../shared/views.js';
import type {
  AppRecord,
  AuditEventRecord,
  AuditQuery,
  Store,
  UserListQuery,
  UserRecord,
} from '../storage/store.js';
import { appView } from './apps.js';
import { accountLocks, unlockAccount } from './login-throttle.js';
import { adminUserView } from './users.js';

export interface AdminReadDeps {
  readonly store: Store;
  readonly clock: Clock;
}

export function findUser(deps: Pick<AdminReadDeps, 'store'>, uin: number): Promise<UserRecord | undefined> {
  return deps.store.users.find(uin);
}

/** The users as the admin API shows them, in the same order. */
export async function adminUserViews(
  deps: AdminReadDeps,
  users: readonly UserRecord[],
): Promise<AdminUserView[]> {
  const uins = users.map((user) => user.uin);
  const [locks, factors, roles] = await Promise.all([
    accountLocks(deps.store, uins, deps.clock.now()),
    deps.store.secondFactors.enrolledKinds(uins),
    deps.store.roles.forUsers(uins),
  ]);
  return users.map((user) =>
    adminUserView(user, locks.get(user.uin) ?? null, factors.get(user.uin) ?? [], roles.get(user.uin) ?? []),
  );
}

/** One user as the admin API shows them, or undefined when nobody has the uin. */
export async function adminUserViewOf(deps: AdminReadDeps, uin: number): Promise<AdminUserView | undefined> {
  const user = await deps.store.users.find(uin);
  return user && (await adminUserViews(deps, [user]))[0];
}

/** A page of the Users panel. */
export async function listUsers(
  deps: AdminReadDeps,
  query: UserListQuery,
): Promise<{ users: AdminUserView[]; total: number }> {
  const page = await deps.store.users.list(query);
  return { users: await adminUserViews(deps, page.users), total: page.total };
}

/** An admin's **Unlock** (docs/interface.md#people-groups-and-audit). */
export function unlockUser(deps: Pick<AdminReadDeps, 'store'>, uin: number): Promise<void> {
  return unlockAccount(deps.store, uin);
}

export function findApp(
  deps: Pick<AdminReadDeps, 'store'>,
  clientId: string,
): Promise<AppRecord | undefined> {
  return deps.store.apps.find(clientId);
}

/** The admin's view of apps: each with its back-channel logouts still queued, newest first. */
export async function adminAppViews(
  deps: Pick<AdminReadDeps, 'store'>,
  apps?: readonly AppRecord[],
): Promise<AppView[]> {
  const [all, pending] = await Promise.all([
    apps ?? deps.store.apps.list(),
    deps.store.logouts.pendingByApp(),
  ]);
  // Newest first; apps created in the same millisecond keep the store's order.
  return [...all].sort((a, b) => b.createdAt - a.createdAt).map((app) => adminView(app, pending));
}

/** An app as the admin API shows it, with its back-channel logouts still queued. */
function adminView(app: AppRecord, pending: ReadonlyMap<string, number>): AppView {
  return { ...appView(app), backchannel_logout_pending: pending.get(app.clientId) ?? 0 };
}

/** A page of the audit trail, newest first. */
export function listAuditEvents(
  deps: Pick<AdminReadDeps, 'store'>,
  query: AuditQuery,
): Promise<AuditEventRecord[]> {
  return deps.store.audit.list(query);
}

/** The users of these uins that exist, in no particular order. */
export function findUsers(
  deps: Pick<AdminReadDeps, 'store'>,
  uins: readonly number[],
): Promise<UserRecord[]> {
  return deps.store.users.findMany(uins);
}

/** One app as the admin API shows it. */
export async function adminAppView(deps: Pick<AdminReadDeps, 'store'>, app: AppRecord): Promise<AppView> {
  return adminView(app, await deps.store.logouts.pendingByApp(app.clientId));
}
