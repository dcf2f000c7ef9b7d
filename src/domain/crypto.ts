import { createHash, hash, randomBytes, randomFillSync, randomInt, timingSafeEqual } from 'node:crypto';

/** A cryptographically random, URL-safe opaque string carrying `bytes` bytes of entropy (base64url). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * SHA-256 hex digest of the UTF-8 bytes: how codes, tokens, sessions and client secrets are stored. The
 * one-shot `hash` (Node ≥ 20.12) costs 0.25 µs against 0.65 µs for a Hash object, and a code exchange
 * takes three.
 */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/** How many random bytes one system call fetches for `fillRandom`. */
const RANDOM_POOL_BYTES = 4096;
const randomPool = Buffer.alloc(RANDOM_POOL_BYTES);
let randomPoolOffset = RANDOM_POOL_BYTES;

/**
 * Writes `length` (at most 4,096) cryptographically random bytes into `target` at `offset`. They come from
 * the operating system's CSPRNG as `randomBytes` would, but 4 KiB at a time: one call costs ~1.7 µs
 * whatever its size, a copy from the pool 0.2 µs, and every token issued takes one (Node's own
 * `randomUUID` buffers its randomness the same way). Each pooled byte is handed out once and zeroed as it
 * leaves, so the pool holds only bytes nobody has received yet.
 */
export function fillRandom(target: Buffer, offset: number, length: number): void {
  if (length > RANDOM_POOL_BYTES) throw new RangeError(`fillRandom: at most ${RANDOM_POOL_BYTES} bytes`);
  if (randomPoolOffset + length > RANDOM_POOL_BYTES) {
    randomFillSync(randomPool);
    randomPoolOffset = 0;
  }
  const end = randomPoolOffset + length;
  randomPool.copy(target, offset, randomPoolOffset, end);
  randomPool.fill(0, randomPoolOffset, end);
  randomPoolOffset = end;
}

/** SHA-256 base64url digest (RFC 7636 S256, OIDC at_hash building block). */
export function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'ascii').digest();
}

/** Compares two strings in time that depends only on their lengths, never on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    // Still spend the comparison so a length mismatch is not faster than a content mismatch.
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

const CLIENT_ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * docs/interface.md#application-oauth-client: a client_id is 16 characters of [A-Za-z0-9], drawn without
 * modulo bias.
 */
export function randomClientId(): string {
  let id = '';
  for (let i = 0; i < 16; i++) id += CLIENT_ID_ALPHABET[randomInt(CLIENT_ID_ALPHABET.length)];
  return id;
}
