/**
 * Secrets the server must read back (TOTP secrets, the id_token signing keys) are kept encrypted at rest
 * (docs/security.md): AES-256-GCM under a key derived from the key-encryption key, which never enters the
 * database (SECRET_KEY, or the file SECRET_KEY_FILE), with the row's identity as additional authenticated data,
 * so a ciphertext copied onto another row does not open. A copy of the database alone reveals none of them.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIN_SECRET_KEY_LENGTH, type SecretKeySource } from '../config/config.js';

/** The stored form: version prefix, then base64url(iv ‖ ciphertext ‖ tag). */
const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The HKDF `info` of the TOTP secrets' box; the signing keys' box has its own (oauth/key-encryption.ts). */
const TOTP_SECRETS_INFO = 'secret box';

export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}

/** Whether a stored value is in the sealed form (anything else was stored before encryption at rest). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

/** Seals and opens short secrets with one 256-bit key. */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new SecretBoxError('the key-encryption key must be 32 bytes');
  }

  seal(plaintext: string, aad: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url');
  }

  /** Throws a SecretBoxError when the key or the `aad` is not the one it was sealed with. */
  open(sealed: string, aad: string): string {
    if (!isSealed(sealed)) throw new SecretBoxError('not a sealed secret');
    const bytes = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('a sealed secret is truncated');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretBoxError(
        'cannot open a sealed secret: SECRET_KEY (or SECRET_KEY_FILE) is not the key it was sealed with',
      );
    }
  }
}

/**
 * The 256-bit key derived from the configured secret (RFC 5869 HKDF-SHA-256; the secret may be any text). Each
 * box has its own `info`, so its key opens nothing sealed by another box.
 */
function deriveKey(secret: string, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'campus-sso', info, 32));
}

async function readSecretFile(path: string): Promise<string> {
  const secret = (await readFile(path, 'utf8')).trim();
  if (secret.length < MIN_SECRET_KEY_LENGTH) {
    throw new SecretBoxError(
      `the secret key file ${path} must hold at least ${MIN_SECRET_KEY_LENGTH} characters`,
    );
  }
  return secret;
}

/**
 * Reads the key-encryption key. A missing SECRET_KEY_FILE is created (mode 0600, 256 random bits) when the
 * configuration allows it (SQLite); `wx` makes two processes starting together agree on one file.
 */
async function loadSecret(source: SecretKeySource): Promise<string> {
  if (source.kind === 'value') return source.value;
  try {
    return await readSecretFile(source.path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (!source.createIfMissing) throw new SecretBoxError(`SECRET_KEY_FILE ${source.path} does not exist`);
  }
  await mkdir(dirname(source.path), { recursive: true });
  try {
    await writeFile(source.path, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readSecretFile(source.path);
}

/** The path of a key file the configuration would create because it does not exist; undefined otherwise. */
export function missingSecretKeyFile(source: SecretKeySource): string | undefined {
  return source.kind === 'file' && source.createIfMissing && !existsSync(source.path)
    ? source.path
    : undefined;
}

/**
 * The box whose key HKDF derives from the key-encryption key with `info`: by default the TOTP secrets' box.
 * What a box sealed opens only with the same secret and the same `info`.
 */
export async function loadSecretBox(source: SecretKeySource, info = TOTP_SECRETS_INFO): Promise<SecretBox> {
  return new SecretBox(deriveKey(await loadSecret(source), info));
}

/**
 * A 256-bit key HKDF derives from the key-encryption key with `info`, for a keyed digest rather than a box (the
 * recovery codes' HMAC, src/domain/recovery-codes.ts; the code exchange's derived tokens).
 */
export async function loadDerivedKey(source: SecretKeySource, info: string): Promise<Buffer> {
  return deriveKey(await loadSecret(source), info);
}
