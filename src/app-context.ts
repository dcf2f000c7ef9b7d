import type { Clock } from './clock.js';
import type { Config } from './config/config.js';
import { AppService } from './domain/apps.js';
import { LoginThrottle } from './domain/login-throttle.js';
import { SessionService } from './domain/sessions.js';
import { UserService } from './domain/users.js';
import { LogoutDeliveryWorker } from './oauth/logout-delivery.js';
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
  /** Sends back-channel logouts (docs/interface.md#sessions-and-sign-out); started by the HTTP server. */
  readonly logoutDeliveries: LogoutDeliveryWorker;
}

export function createAppContext(config: Config, store: Store, clock: Clock): AppContext {
  const ctx: AppContext = {
    config,
    store,
    clock,
    users: new UserService(store, clock),
    apps: new AppService(store, clock),
    sessions: new SessionService(store, clock, {
      absolute: config.sessionTtl,
      idle: config.sessionIdleTtl,
    }),
    loginThrottle: new LoginThrottle(store, clock),
    logoutDeliveries: new LogoutDeliveryWorker(() => ctx),
  };
  return ctx;
}
