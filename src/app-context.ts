import type { Clock } from './clock.js';
import type { Config } from './config/config.js';
import { AppService } from './domain/apps.js';
import { AuditLog } from './domain/audit.js';
import { LoginThrottle } from './domain/login-throttle.js';
import { ResetCodeService } from './domain/reset-codes.js';
import { SessionService } from './domain/sessions.js';
import { UserService } from './domain/users.js';
import type { Store } from './storage/store.js';

/** Everything a route needs, built once at start-up and handed to every plugin. */
export interface AppContext {
  readonly config: Config;
  readonly store: Store;
  readonly clock: Clock;
  readonly users: UserService;
  readonly apps: AppService;
  readonly sessions: SessionService;
  readonly loginThrottle: LoginThrottle;
  readonly audit: AuditLog;
  readonly resetCodes: ResetCodeService;
}

export function createAppContext(config: Config, store: Store, clock: Clock): AppContext {
  return {
    config,
    store,
    clock,
    users: new UserService(store, clock),
    apps: new AppService(store, clock),
    sessions: new SessionService(store, clock, config.sessionTtl),
    loginThrottle: new LoginThrottle(store, clock),
    audit: new AuditLog(store, clock),
    resetCodes: new ResetCodeService(store, clock),
  };
}
