/**
 * The one storage interface (the model is ory/hydra's `persistence/`): the protocol and domain code talk to
 * this, never to SQL, and never know whether SQLite or PostgreSQL is behind it. All times are epoch
 * milliseconds. No secret is stored in plain text, but not every one the same way: passwords are stored as
 * password hashes (domain/passwords.ts); codes and tokens (`codeHash`, `tokenHash`) under `credentialKey`
 * (src/oauth/credentials.ts), their SHA-256 digest behind a time prefix, so that rows arrive in index order;
 * recovery codes as HMAC-SHA-256 digests (domain/recovery-codes.ts); signing keys and TOTP secrets, which the
 * server must read back, sealed (encrypted) with the secret box (domain/secret-box.ts).
 */

import type { Exclusive, PurgeReport } from './records.js';
import type {
  AppRepository,
  AuditRepository,
  CasTicketRepository,
  CodeRepository,
  ConsentRepository,
  DeviceAuthorizationRepository,
  PhoneSignInRepository,
  RoleRepository,
  LogoutRepository,
  PendingSignInRepository,
  ResetCodeRepository,
  SecondFactorRepository,
  SessionRepository,
  SigningKeyRepository,
  ThrottleRepository,
  TokenRepository,
  UserRepository,
  WebAuthnChallengeRepository,
} from './repositories.js';
import type { ServiceTokenRepository } from './service-token-records.js';

export * from './records.js';
export * from './repositories.js';
export * from './service-token-records.js';

/** Every repository of the Store: what `store.transaction` hands its work, bound to the transaction. */
export interface Repositories {
  readonly users: UserRepository;
  readonly apps: AppRepository;
  readonly sessions: SessionRepository;
  readonly codes: CodeRepository;
  readonly tokens: TokenRepository;
  readonly consents: ConsentRepository;
  readonly throttles: ThrottleRepository;
  readonly signingKeys: SigningKeyRepository;
  readonly secondFactors: SecondFactorRepository;
  readonly webAuthnChallenges: WebAuthnChallengeRepository;
  readonly pendingSignIns: PendingSignInRepository;
  readonly resetCodes: ResetCodeRepository;
  readonly audit: AuditRepository;
  readonly logouts: LogoutRepository;
  readonly casTickets: CasTicketRepository;
  readonly deviceAuthorizations: DeviceAuthorizationRepository;
  readonly phoneSignIns: PhoneSignInRepository;
  readonly roles: RoleRepository;
  readonly serviceTokens: ServiceTokenRepository;
}

export interface Store extends Repositories {
  readonly kind: 'sqlite' | 'postgres';
  /**
   * Runs `work` in one database transaction (docs/architecture.md#transactions): `tx` holds the same
   * repositories, each bound to it, and what `work` writes through them commits when it resolves, durably
   * (as writeDurably does), or is rolled back whole when it throws (its error is thrown again). Inside
   * `work`, use `tx` only, never this Store (on SQLite that throws OutsideTransaction), and do no slow work
   * (password hashing, network): on SQLite every other statement of the process waits for the commit.
   * Back-channel logouts queued by `tx.sessions` are sent after the commit. Not nestable.
   */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /**
   * Runs `work` unless work of the same name is running (on PostgreSQL: in any instance on this schema, by an
   * advisory lock); answers `{ ran: false }` then, without running it.
   */
  exclusive<T>(name: string, work: () => Promise<T>): Promise<Exclusive<T>>;
  /** Applies pending migrations; safe to run concurrently from several instances. */
  migrate(): Promise<string[]>;
  /** The migrations not applied yet, without applying any (`campus-sso check`). */
  pendingMigrations(): Promise<string[]>;
  /** Answers when the database reads and commits a write (GET /readyz); throws otherwise. */
  ping(): Promise<void>;
  /**
   * Deletes expired codes, tokens, sessions, throttle windows and reset codes, and audit events older than
   * `auditRetentionDays` (kept forever when omitted).
   */
  purgeExpired(now: number, auditRetentionDays?: number): Promise<PurgeReport>;
  close(): Promise<void>;
}
