import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';

/**
 * Password hashing: argon2id in PHC form. Parameters are OWASP's recommendation (19 MiB, 2 passes, 1 lane),
 * about 10 ms here. Hashes made by the previous system (`m=65536,t=1,p=2`) verify, since the PHC string
 * carries its own parameters, and are re-hashed with these at the next successful sign-in.
 */
const PARAMETERS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
const CURRENT_PREFIX = `$argon2id$v=19$m=${PARAMETERS.memoryCost},t=${PARAMETERS.timeCost},p=${PARAMETERS.parallelism}$`;

// The length rule is shared with the pages.
export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordProblem } from '../shared/users.js';

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

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same work as a real verification, so an unknown uin answers in the same time as a wrong
 * password (no account enumeration by timing).
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword('campus-sso dummy password for timing equalisation');
  await verifyPassword(await dummyHash, password);
  return false;
}
