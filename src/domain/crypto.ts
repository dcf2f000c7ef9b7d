import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** A cryptographically random, URL-safe opaque string carrying `bytes` bytes of entropy (base64url). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** SHA-256 hex digest: how codes, tokens, sessions and client secrets are stored. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
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
