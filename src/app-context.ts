import type { Clock } from './clock.js';
import type { Config } from './config/config.js';
import { AppService } from './domain/apps.js';
import { AuditLog } from './domain/audit.js';
import { ConsentService } from './domain/consents.js';
import { DatabaseStatus } from './domain/database-status.js';
import { Directory } from './domain/directory.js';
import { PasswordVerifier } from './domain/password-verifier.js';
import { DeviceApprovalService } from './domain/device-approvals.js';
import { PhoneSignInService } from './domain/phone-sign-ins.js';
import { LoginThrottle } from './domain/login-throttle.js';
import { PasskeyService } from './domain/passkeys.js';
import { PendingSignInService } from './domain/pending-sign-ins.js';
import { SecondFactorService } from './domain/second-factors.js';
import { RECOVERY_CODES_KEY_INFO } from './domain/recovery-codes.js';
import { type SecretBox, loadDerivedKey, loadSecretBox } from './domain/secret-box.js';
import { TotpService } from './domain/totp.js';
import { ResetCodeService } from './domain/reset-codes.js';
import { SessionService } from './domain/sessions.js';
import { UserService } from './domain/users.js';
import type { Store } from './storage/store.js';

/** Everything a route needs, built once at start-up and handed to every plugin. */
export interface AppContext {
  readonly config: Config;
  readonly store: Store;
  readonly clock: Clock;
  /** Which database serves, and whether it answers (GET /readyz). */
  readonly database: DatabaseStatus;
  readonly users: UserService;
  /**
   * Whose word decides a password: the local hash or the school's directory (docs/interface.md#the-schools-directory).
   * `passwords.directory` is the directory, when one is configured.
   */
  readonly passwords: PasswordVerifier;
  readonly apps: AppService;
  /** The apps each user authorized. */
  readonly consents: ConsentService;
  readonly sessions: SessionService;
  readonly loginThrottle: LoginThrottle;
  readonly audit: AuditLog;
  readonly resetCodes: ResetCodeService;
  /** The key-encryption key's box, read (or created) on first use. */
  readonly secretBox: () => Promise<SecretBox>;
  readonly secondFactors: SecondFactorService;
  readonly totp: TotpService;
  readonly passkeys: PasskeyService;
  readonly pendingSignIns: PendingSignInService;
  /** The user's side of the device grant (docs/interface.md#device-authorization-grant). */
  readonly deviceApprovals: DeviceApprovalService;
  /** "Sign in with your phone" (docs/interface.md#sign-in-with-your-phone). */
  readonly phoneSignIns: PhoneSignInService;
}

/** Calls `load` once, on first use; a failure is not remembered, so the next call tries again. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}

export function createAppContext(config: Config, store: Store, clock: Clock): AppContext {
  const secretBox = once(() => loadSecretBox(config.secretKey));
  const users = new UserService(store, clock);
  const directory = config.ldap === undefined ? undefined : new Directory(config.ldap);
  return {
    config,
    store,
    clock,
    database: new DatabaseStatus(store),
    users,
    passwords: new PasswordVerifier(store, clock, users, directory),
    apps: new AppService(store, clock),
    consents: new ConsentService(store, clock),
    sessions: new SessionService(store, clock, {
      absolute: config.sessionTtl,
      idle: config.sessionIdleTtl,
    }),
    loginThrottle: new LoginThrottle(store, clock),
    secretBox,
    secondFactors: new SecondFactorService(
      store,
      clock,
      config.mfaRequiredGroups,
      once(() => loadDerivedKey(config.secretKey, RECOVERY_CODES_KEY_INFO)),
    ),
    totp: new TotpService(store, clock, secretBox, new URL(config.baseUrl).host),
    passkeys: new PasskeyService(store, clock, config.baseUrl),
    pendingSignIns: new PendingSignInService(store, clock),
    deviceApprovals: new DeviceApprovalService(store, clock),
    phoneSignIns: new PhoneSignInService(store, clock),
    audit: new AuditLog(store, clock),
    resetCodes: new ResetCodeService(store, clock),
  };
}
