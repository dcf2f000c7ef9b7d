import { availableParallelism } from 'node:os';
import { type Options, hash, verify } from '@node-rs/argon2';
import { isCommonPassword } from './password-strength.js';

/**
 * Password hashing: argon2id in PHC form. Parameters are OWASP's recommendation (19 MiB, 2 passes, 1 lane),
 * about 10 ms here. Hashes made by the previous system (`m=65536,t=1,p=2`) verify, since the PHC string
 * carries its own parameters, and are re-hashed with these at the next successful sign-in.
 */
const PARAMETERS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const satisfies Options;
const CURRENT_PREFIX = `$argon2id$v=19$m=${PARAMETERS.memoryCost},t=${PARAMETERS.timeCost},p=${PARAMETERS.parallelism}$`;

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 256;

/**
 * Each hash holds 19 MiB while it runs. More at once than there are cores buys no throughput, only memory
 * (libuv would run four), so the work queues here instead.
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

const argon2 = new Limiter(Math.max(1, availableParallelism()));

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

/** Every parameter set a stored hash is expected to have, with a dummy hash made lazily for each. */
const KNOWN_PARAMETERS = [PARAMETERS, PREVIOUS_SYSTEM].map((parameters) => ({
  prefix: `$argon2id$v=19$m=${parameters.memoryCost},t=${parameters.timeCost},p=${parameters.parallelism}$`,
  dummy: undefined as Promise<string> | undefined,
  parameters,
}));

/**
 * The work of a refused sign-in (docs/security.md): an unknown uin, a wrong password, an imported
 * previous-system hash and a disabled account must answer in the same time, or the time tells which accounts
 * exist and which came from the previous system. So every refusal costs exactly one verification with EACH
 * known parameter set: the stored hash's own verification (already done, `storedHash`) stands for its set,
 * and a dummy hash is verified for every other. A malformed or missing stored hash costs the dummies only.
 */
export async function spendRefusalWork(storedHash: string | undefined, password: string): Promise<void> {
  for (const known of KNOWN_PARAMETERS) {
    if (storedHash?.startsWith(known.prefix) && isArgon2idHash(storedHash)) continue;
    known.dummy ??= argon2.run(() =>
      hash('campus-sso dummy password for timing equalisation', known.parameters),
    );
    await verifyPassword(await known.dummy, password);
  }
}

/**
 * Why a new password may not be used, or undefined (docs/security.md): 8 to 256 characters, not containing
 * the uin it is for, and not among the 10,000 most common passwords (password-strength.ts).
 */
export function passwordProblem(password: string, uin?: number): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH)
    return `password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH)
    return `password must be at most ${MAX_PASSWORD_LENGTH} characters`;
  if (uin !== undefined && password.includes(String(uin))) return 'password must not contain the uin';
  if (isCommonPassword(password)) {
    return 'password is too common (among the 10,000 most common passwords, or as easy to guess); choose a longer or less predictable one';
  }
  return undefined;
}
