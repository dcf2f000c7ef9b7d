/**
 * The id_token signing keys are encrypted at rest (docs/security.md): AES-256-GCM under a key-encryption key
 * that never enters the database (SECRET_KEY, or the file SECRET_KEY_FILE), with the key's `kid` as
 * additional authenticated data, so a ciphertext moved onto another row does not decrypt. A copy of the
 * database alone cannot sign tokens.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { MIN_SECRET_KEY_LENGTH, type SecretKeySource } from '../config/config.js';

/** The stored form: version prefix, then base64url(iv ‖ ciphertext ‖ tag). Plain JWKs start with `{`. */
const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class KeyEncryptionError extends Error {
  override readonly name = 'KeyEncryptionError';
}

/** The 256-bit key derived from the configured secret (RFC 5869 HKDF-SHA-256; the secret may be any text). */
function deriveKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'campus-sso', 'id_token signing key encryption', 32));
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

async function readSecretFile(path: string): Promise<string> {
  const secret = (await readFile(path, 'utf8')).trim();
  if (secret.length < MIN_SECRET_KEY_LENGTH) {
    throw new KeyEncryptionError(
      `the secret key file ${path} must hold at least ${MIN_SECRET_KEY_LENGTH} characters`,
    );
  }
  return secret;
}

/**
 * Reads the key-encryption key. A missing SECRET_KEY_FILE is created (mode 0600, 256 random bits) when the
 * configuration allows it (SQLite); `wx` makes two processes starting together agree on one file.
 */
export async function loadKeyEncryptionKey(source: SecretKeySource): Promise<Buffer> {
  if (source.kind === 'value') return deriveKey(source.value);
  try {
    return deriveKey(await readSecretFile(source.path));
  } catch (error) {
    if (!isMissing(error)) throw error;
    if (!source.createIfMissing) {
      throw new KeyEncryptionError(`SECRET_KEY_FILE ${source.path} does not exist`);
    }
  }
  await mkdir(dirname(source.path), { recursive: true });
  try {
    await writeFile(source.path, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return deriveKey(await readSecretFile(source.path));
}

export function isEncrypted(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

export function encryptPrivateJwk(kek: Buffer, kid: string, privateJwk: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', kek, iv);
  cipher.setAAD(Buffer.from(kid, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(privateJwk, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url');
}

export function decryptPrivateJwk(kek: Buffer, kid: string, stored: string): string {
  if (!isEncrypted(stored)) throw new KeyEncryptionError(`the signing key ${kid} is not encrypted`);
  const sealed = Buffer.from(stored.slice(PREFIX.length), 'base64url');
  try {
    const decipher = createDecipheriv('aes-256-gcm', kek, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(kid, 'utf8'));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    const plaintext = Buffer.concat([
      decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return plaintext.toString('utf8');
  } catch {
    throw new KeyEncryptionError(
      `cannot decrypt the id_token signing key ${kid}: SECRET_KEY (or SECRET_KEY_FILE) is not the key it was encrypted with`,
    );
  }
}
