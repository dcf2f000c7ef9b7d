/**
 * Codes and tokens: the opaque authorization codes, access tokens and refresh tokens (and device codes)
 * campus-sso issues, and the key each is stored under. Not passwords, client secrets or second factors.
 *
 * A credential is 38 bytes, base64url (51 characters): the issuing millisecond as 6 big-endian bytes, then 32
 * random bytes (256 bits; docs/security.md#token-endpoint-and-grants asks for ≥ 128). The database keeps only
 * its key: the time prefix in hex, then the SHA-256 hex of the whole credential (76 characters).
 *
 * Why the time prefix: keys then arrive in key order, so each index insert lands on the right-most page of its
 * B-tree (as UUIDv7 or ULID keys do) instead of dirtying a random page. With purely random keys a code exchange
 * rewrote one random page per index, and at a million live tokens every commit and checkpoint paid for it
 * (`npm run bench`: SQLite exchanges went from 9.6k to 12.5k req/s, and from 66% to 95% at 1,000,000 tokens).
 * The prefix tells only when the credential was issued, which its holder knows anyway.
 *
 * Credentials issued before this scheme (32 random bytes, 43 characters) are stored under their bare SHA-256
 * hex; `credentialKey` still finds them, so an upgrade signs nobody out.
 */
import { createHmac } from 'node:crypto';
import { fillRandom, sha256Hex } from '../domain/crypto.js';

const TIME_BYTES = 6;
const RANDOM_BYTES = 32;
/** Base64url length of TIME_BYTES + RANDOM_BYTES (no padding). */
const CREDENTIAL_LENGTH = Math.ceil(((TIME_BYTES + RANDOM_BYTES) * 8) / 6);
/** Base64url characters that carry exactly the TIME_BYTES prefix. */
const PREFIX_CHARACTERS = (TIME_BYTES * 8) / 6;
const MAX_TIME = 2 ** (TIME_BYTES * 8) - 1;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A new credential issued at `now` (epoch milliseconds). */
export function newCredential(now: number): string {
  const bytes = Buffer.allocUnsafe(TIME_BYTES + RANDOM_BYTES);
  fillRandom(bytes, TIME_BYTES, RANDOM_BYTES);
  bytes.writeUIntBE(Math.min(MAX_TIME, Math.max(0, Math.trunc(now))), 0, TIME_BYTES);
  return bytes.toString('base64url');
}

/**
 * A credential derived from another one (the tokens of a code exchange, from the code), in the same format:
 * the issuing millisecond, then HMAC-SHA-256 under a server key of `purpose` and `from` (32 bytes; a PRF of a
 * 256-bit random credential is as unguessable as fresh random bytes). Derived, a retried exchange finds the
 * same tokens again without their ever being stored (docs/security.md#token-endpoint-and-grants).
 */
export function derivedCredential(key: Buffer, purpose: string, from: string, issuedAt: number): string {
  const bytes = Buffer.allocUnsafe(TIME_BYTES + RANDOM_BYTES);
  createHmac('sha256', key).update(`${purpose}\0${from}`).digest().copy(bytes, TIME_BYTES);
  bytes.writeUIntBE(Math.min(MAX_TIME, Math.max(0, Math.trunc(issuedAt))), 0, TIME_BYTES);
  return bytes.toString('base64url');
}

/** The key a presented credential is stored and looked up under (never the credential itself). */
export function credentialKey(credential: string): string {
  const digest = sha256Hex(credential);
  if (credential.length !== CREDENTIAL_LENGTH || !BASE64URL.test(credential)) return digest;
  return Buffer.from(credential.slice(0, PREFIX_CHARACTERS), 'base64url').toString('hex') + digest;
}
