/**
 * The id_token signing keys are encrypted at rest (docs/security.md) in a secret box of their own
 * (domain/secret-box.ts: AES-256-GCM under a key derived from the key-encryption key), with the key's `kid` as
 * additional authenticated data, so a ciphertext moved onto another row does not decrypt. A copy of the
 * database alone cannot sign tokens.
 */
import type { SecretKeySource } from '../config/config.js';
import { isSealed, loadSecretBox, type SecretBox } from '../domain/secret-box.js';

/** The HKDF `info` the signing keys' box is derived with; the keys already stored were sealed under it. */
const SIGNING_KEYS_INFO = 'id_token signing key encryption';

export class KeyEncryptionError extends Error {
  override readonly name = 'KeyEncryptionError';
}

/** Reads (or, with SQLite, creates) the key-encryption key and derives the signing keys' box from it. */
export function loadSigningKeyBox(source: SecretKeySource): Promise<SecretBox> {
  return loadSecretBox(source, SIGNING_KEYS_INFO);
}

/** Whether a stored private JWK is encrypted; plain JWKs, stored before encryption at rest, start with `{`. */
export function isEncrypted(stored: string): boolean {
  return isSealed(stored);
}

export function encryptPrivateJwk(box: SecretBox, kid: string, privateJwk: string): string {
  return box.seal(privateJwk, kid);
}

export function decryptPrivateJwk(box: SecretBox, kid: string, stored: string): string {
  if (!isEncrypted(stored)) throw new KeyEncryptionError(`the signing key ${kid} is not encrypted`);
  try {
    return box.open(stored, kid);
  } catch {
    throw new KeyEncryptionError(
      `cannot decrypt the id_token signing key ${kid}: SECRET_KEY (or SECRET_KEY_FILE) is not the key it was encrypted with`,
    );
  }
}
