import { availableParallelism } from 'node:os';
import { type Options, hash, verify } from '@node-rs/argon2';
import { commonPasswordKind } from './password-strength.js';
import { enforce } from './rule-violation.js';

/**
 * Password hashing: argon2id in PHC form. Parameters are OWASP's recommendation (19 MiB, 2 passes, 1 lane),
 * about 10 ms here. Hashes made by the previous system (`m=65536,t=1,p=2`) verify, since the PHC string
 * carries its own parameters, and are re-hashed with these at the next successful sign-in.
 */
const PARAMETERS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const satisfies Options;
const CURRENT_PREFIX = `$argon2id$v=19$m=${PARAMETERS.memoryCost},t=${PARAMETERS.timeCost},p=${PARAMETERS.parallelism}$`;

// The length rule is shared with the pages; the server adds the uin and common-password rules.
import {
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  passwordProblem as lengthProblem,
} from '../shared/users.js';

export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH };

/**
 * Each hash holds 19 MiB while it runs (64 MiB for a previous-system one). More at once than there are cores
 * buys no throughput, only memory (libuv would run four), so the work queues here instead; and one core is
 * left to the event loop, which does the rest of every sign-in (sessions, throttle, audit) and every other
 * request meanwhile. Measured with the bench's sign-in row on 2 cores (docs/operations.md#requirements): two
 * hashes at once took the server from 120 MB idle to a 159–174 MB peak; one at a time, to ~140 MB.
 */
class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}

const argon2 = new Limiter(Math.max(1, availableParallelism() - 1));

export function hashPassword(password: string): Promise<string> {
  return argon2.run(() => hash(password, PARAMETERS));
}

export async function verifyPassword(phcHash: string, password: string): Promise<boolean> {
  try {
    return await argon2.run(() => verify(phcHash, password));
  } catch {
    // A malformed stored hash is a failed verification, never a crash.
    return false;
  }
}

export function needsRehash(phcHash: string): boolean {
  return !phcHash.startsWith(CURRENT_PREFIX);
}

export function isArgon2idHash(value: string): boolean {
  return /^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/.test(value);
}

/** The previous system's parameters: its hashes are imported as they are (campux-import.ts). */
const PREVIOUS_SYSTEM = { memoryCost: 65_536, timeCost: 1, parallelism: 2 } as const satisfies Options;

/** A parameter set as the PHC string writes it, e.g. `m=19456,t=2,p=1`. */
const written = (p: Options): string => `m=${p.memoryCost},t=${p.timeCost},p=${p.parallelism}`;

/**
 * Every parameter set a stored hash is expected to have, with a dummy hash made lazily for each, and how many
 * verifications sign-ins made with it (`signInVerifications`).
 */
const KNOWN_PARAMETERS = [PARAMETERS, PREVIOUS_SYSTEM].map((parameters) => ({
  prefix: `$argon2id$v=19$${written(parameters)}$`,
  dummy: undefined as Promise<string> | undefined,
  parameters,
  verified: { stored: 0, dummy: 0 },
}));
/** Stored hashes with parameters no known set has (none is expected), verified last. */
const otherVerified = { stored: 0 };

export interface SignInVerifications {
  /** The parameter set (`m=19456,t=2,p=1`), or `other`. */
  readonly parameters: string;
  /** The account's own hash, or a dummy one verified so that a refusal takes as long as any other. */
  readonly hash: 'stored' | 'dummy';
  readonly count: number;
}

/** How many argon2id verifications sign-ins made in this process, by set and hash (metrics.ts reports them). */
export function signInVerifications(): SignInVerifications[] {
  return [
    ...KNOWN_PARAMETERS.flatMap(({ parameters, verified }) => [
      { parameters: written(parameters), hash: 'stored' as const, count: verified.stored },
      { parameters: written(parameters), hash: 'dummy' as const, count: verified.dummy },
    ]),
    { parameters: 'other', hash: 'stored', count: otherVerified.stored },
  ];
}

/**
 * Whether any account's hash still has the previous system's parameters: the store answers from an index of
 * only those (0018), so this is one look-up.
 */
export type PreviousSystemHashesLeft = () => Promise<boolean>;

const DUMMY_PASSWORD = 'campus-sso dummy password for timing equalisation';

/**
 * Checks a sign-in's password so that every refusal takes the same time
 * (docs/security.md#browser-sign-in-and-sessions): an unknown uin, a wrong password, an imported
 * previous-system hash and a disabled account (`usable` false) must not be told apart by timing. Every refusal
 * verifies once with EACH known parameter set in use, in the same order: the stored hash in its own set's
 * turn, a dummy hash in every other (and for a missing or malformed hash, in all). Today's set is always in
 * use; the previous system's only while an imported hash is left (`previousSystemHashesLeft`, asked in its
 * turn by every refusal alike). Without one, a refusal spares that dummy: 64 MiB and ~22 ms of CPU over both
 * cores, against ~6 ms for today's set (measured here). The same order matters: measured, verifying the
 * 64 MiB set before the 19 MiB one cost ~5% more CPU than after it. Only a success may stop early.
 */
export async function verifySignIn(
  storedHash: string | undefined,
  password: string,
  usable: boolean,
  previousSystemHashesLeft: PreviousSystemHashesLeft,
): Promise<boolean> {
  const stored = storedHash !== undefined && isArgon2idHash(storedHash) ? storedHash : undefined;
  let verified = false;
  let checked = false;
  for (const known of KNOWN_PARAMETERS) {
    const inUse = known.parameters !== PREVIOUS_SYSTEM || (await previousSystemHashesLeft());
    if (!checked && stored?.startsWith(known.prefix)) {
      checked = true;
      known.verified.stored++;
      verified = await verifyPassword(stored, password);
      if (verified && usable) return true;
    } else if (inUse) {
      known.dummy ??= argon2.run(() => hash(DUMMY_PASSWORD, known.parameters));
      known.verified.dummy++;
      await verifyPassword(await known.dummy, password);
    }
  }
  // A hash with other parameters than the known ones (none is expected) is verified last.
  if (!checked && stored !== undefined) {
    otherVerified.stored++;
    verified = await verifyPassword(stored, password);
  }
  return verified && usable;
}

/**
 * Why a new password is refused, as a stable code the pages translate (docs/interface.md#the-envelope:
 * `data.reason`) beside the English sentence `msg` keeps.
 */
export type PasswordRefusalReason = 'too_short' | 'too_long' | 'contains_uin' | 'too_common' | 'guessable';

export interface PasswordRefusal {
  readonly reason: PasswordRefusalReason;
  readonly message: string;
}

/**
 * Why a new password may not be used, or undefined (docs/security.md): 8 to 256 characters, not containing
 * the uin it is for, and not among the 10,000 most common passwords nor as easy to guess
 * (password-strength.ts).
 */
export function passwordRefusal(password: string, uin?: number): PasswordRefusal | undefined {
  const length = lengthProblem(password);
  if (length !== undefined) {
    return { reason: password.length < MIN_PASSWORD_LENGTH ? 'too_short' : 'too_long', message: length };
  }
  if (uin !== undefined && password.includes(String(uin))) {
    return { reason: 'contains_uin', message: 'password must not contain the uin' };
  }
  const common = commonPasswordKind(password);
  if (common !== undefined) {
    return {
      reason: common === 'common' ? 'too_common' : 'guessable',
      message:
        'password is too common (among the 10,000 most common passwords, or as easy to guess); choose a longer or less predictable one',
    };
  }
  return undefined;
}

/** The English sentence of `passwordRefusal`, for the CLI and the import's row errors. */
export function passwordProblem(password: string, uin?: number): string | undefined {
  return passwordRefusal(password, uin)?.message;
}

const CHECKED = Symbol('checked against the password policy');

/**
 * A password that passed the policy for one uin (checkPassword). The policy costs about 10 ms a password (the
 * pattern matching), so a caller that checked already (the CSV import, which reports every problem of a
 * row) hands this to UserService, which then does not check again; only this module can make one.
 */
export interface CheckedPassword {
  readonly [CHECKED]: true;
  readonly value: string;
  readonly uin: number;
}

/** The password as a CheckedPassword for `uin`, or why it may not be used. */
export function checkPassword(password: string, uin: number): CheckedPassword | { readonly problem: string } {
  const problem = passwordProblem(password, uin);
  return problem === undefined ? { [CHECKED]: true, value: password, uin } : { problem };
}

/**
 * The password to set for `uin`: one checkPassword passed for this uin, or one checked now; throws
 * RuleViolation when the policy refuses it (docs/security.md#one-rule-one-place).
 */
export function enforcedPassword(password: string | CheckedPassword, uin: number): string {
  if (typeof password !== 'string' && password[CHECKED] === true && password.uin === uin)
    return password.value;
  const text = typeof password === 'string' ? password : password.value;
  enforce(passwordProblem(text, uin));
  return text;
}
