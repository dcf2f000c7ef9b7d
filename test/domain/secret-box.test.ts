/** Secrets sealed at rest (docs/security.md): AES-256-GCM under the key-encryption key, bound to their row. */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretBoxError, loadSecretBox } from '../../src/domain/secret-box.js';

const KEY = { kind: 'value', value: 'a-key-encryption-key-of-32-characters' } as const;

describe('SecretBox', () => {
  it('opens what it sealed, and the sealed form reveals nothing of it', async () => {
    const box = await loadSecretBox(KEY);
    const sealed = box.seal('JBSWY3DPEHPK3PXP', 'totp:10001');
    expect(sealed).toMatch(/^enc:v1:[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(box.seal('JBSWY3DPEHPK3PXP', 'totp:10001')).not.toBe(sealed);
    expect(box.open(sealed, 'totp:10001')).toBe('JBSWY3DPEHPK3PXP');
  });

  it('refuses to open a secret moved to another row, or under another key', async () => {
    const box = await loadSecretBox(KEY);
    const sealed = box.seal('JBSWY3DPEHPK3PXP', 'totp:10001');
    expect(() => box.open(sealed, 'totp:10002')).toThrow(SecretBoxError);
    const other = await loadSecretBox({ kind: 'value', value: 'another-key-encryption-key-32-chars' });
    expect(() => other.open(sealed, 'totp:10001')).toThrow(SecretBoxError);
    expect(() => box.open('JBSWY3DPEHPK3PXP', 'totp:10001')).toThrow(SecretBoxError);
  });

  // Sealed by an earlier version under KEY: the stored form and the key derivation must never change, or the
  // TOTP secrets already in the database would no longer open.
  const SEALED_BEFORE = 'enc:v1:jQd_31MgzUNryRwlYcDCtWpkKZ-1ffvzH7CXbjZbupDykIJ8L-_QcZ7nFAw';

  it('opens a secret sealed by an earlier version, with the key given as a value or in a file', async () => {
    expect((await loadSecretBox(KEY)).open(SEALED_BEFORE, 'totp:10001')).toBe('JBSWY3DPEHPK3PXP');
    const dir = mkdtempSync(join(tmpdir(), 'campus-sso-secret-'));
    try {
      const path = join(dir, 'secret.key');
      writeFileSync(path, `${KEY.value}\n`, { mode: 0o600 });
      const fromFile = await loadSecretBox({ kind: 'file', path, createIfMissing: false });
      expect(fromFile.open(SEALED_BEFORE, 'totp:10001')).toBe('JBSWY3DPEHPK3PXP');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('creates the key file (mode 0600) on first use, and reads the same key afterwards', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'campus-sso-secret-'));
    try {
      const path = join(dir, 'data', 'secret.key');
      const first = await loadSecretBox({ kind: 'file', path, createIfMissing: true });
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(readFileSync(path, 'utf8').trim().length).toBeGreaterThanOrEqual(32);
      const again = await loadSecretBox({ kind: 'file', path, createIfMissing: false });
      expect(again.open(first.seal('x', 'aad'), 'aad')).toBe('x');
      await expect(
        loadSecretBox({ kind: 'file', path: join(dir, 'missing.key'), createIfMissing: false }),
      ).rejects.toThrow(SecretBoxError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
