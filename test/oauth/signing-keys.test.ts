/**
 * docs/interface.md#openid-connect and docs/security.md: id_tokens are signed RS256 (OIDC Core §15.1) with keys
 * that are encrypted at rest under a key held outside the database, rotated with `keys rotate`, and kept in
 * the JWKS until the id_tokens they signed have expired.
 */
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  createRemoteJWKSet,
  customFetch,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  jwtVerify,
} from 'jose';
import { describe, expect, it } from 'vitest';
import { createAppContext } from '../../src/app-context.js';
import { loadConfig } from '../../src/config/config.js';
import { SecretBoxError, loadSecretBox } from '../../src/domain/secret-box.js';
import { decryptPrivateJwk, encryptPrivateJwk, loadSigningKeyBox } from '../../src/oauth/key-encryption.js';
import { listSigningKeys, prepareSigningKeys, rotateSigningKeys } from '../../src/oauth/signing-keys.js';
import { openStore } from '../../src/storage/open-store.js';
import { type DatabaseSuiteOptions, describeOnDatabases } from '../helpers/fixture.js';
import { json } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tokensFor } from './support.js';

let offsetMs = 0;
const clock = { now: () => Date.now() + offsetMs };

describe("the signing keys' encryption at rest", () => {
  const SECRET_KEY = { kind: 'value', value: 'a-key-encryption-key-of-32-characters' } as const;
  const JWK = '{"kty":"oct","k":"c2VjcmV0","kid":"kid-1"}';
  // Encrypted by an earlier version under SECRET_KEY: the stored form and the key derivation must never
  // change, or the signing keys already in the database would no longer decrypt.
  const ENCRYPTED_BEFORE =
    'enc:v1:MoUgB6N8q7fAKg3qKZJW1QNOzglnOZfvxOfwLZ32PX5Mqvz46xj7JzAzrJrGjTLXmudy82Qfm6vANf-gMFoyp_aWXGTnpw';

  it('decrypts a private key encrypted by an earlier version', async () => {
    expect(decryptPrivateJwk(await loadSigningKeyBox(SECRET_KEY), 'kid-1', ENCRYPTED_BEFORE)).toBe(JWK);
  });

  it("uses a key of its own: bound to the kid, and apart from the TOTP secrets' box", async () => {
    const box = await loadSigningKeyBox(SECRET_KEY);
    expect(decryptPrivateJwk(box, 'kid-1', encryptPrivateJwk(box, 'kid-1', JWK))).toBe(JWK);
    expect(() => decryptPrivateJwk(box, 'kid-2', ENCRYPTED_BEFORE)).toThrow(/cannot decrypt .* kid-2/);
    expect(() => decryptPrivateJwk(box, 'kid-1', JWK)).toThrow(/kid-1 is not encrypted/);
    const totpSecretsBox = await loadSecretBox(SECRET_KEY);
    expect(() => totpSecretsBox.open(ENCRYPTED_BEFORE, 'kid-1')).toThrow(SecretBoxError);
  });
});

const SUITE: DatabaseSuiteOptions = { transport: 'inject', clock, client: true, user: 'member' };

describeOnDatabases('id_token signing keys', SUITE, ({ database, server, client, user }) => {
  const { browser } = user;

  const idToken = async (on: TestServer = server): Promise<string> => {
    const tokens = await tokensFor(on, browser, client, { scope: 'openid', nonce: 'n' });
    return tokens.id_token!;
  };

  /** A relying party set up the usual way (go-oidc's default): RS256 only, keys from jwks_uri. */
  const verifyLikeARelyingParty = (token: string) =>
    jwtVerify(
      token,
      // jose fetches the keys through the suite's transport, as it would fetch them over the network.
      createRemoteJWKSet(new URL(`${server.baseUrl}/.well-known/jwks.json`), { [customFetch]: server.fetch }),
      {
        issuer: server.baseUrl,
        audience: client.clientId,
        algorithms: ['RS256'],
      },
    );

  const publishedKids = async (): Promise<string[]> => {
    const { keys } = await json<{ keys: { kid: string }[] }>(await server.fetch(`/.well-known/jwks.json`));
    return keys.map((key) => key.kid);
  };

  describe('GET /.well-known/jwks.json and the id_token', () => {
    it('signs id_tokens RS256, which a relying party accepting only RS256 verifies against the JWKS', async () => {
      const { payload, protectedHeader } = await verifyLikeARelyingParty(await idToken());
      expect(protectedHeader.alg).toBe('RS256');
      expect(payload.nonce).toBe('n');
    });
  });

  describe('keys at rest', () => {
    it('stores no private key in plain text: only AES-GCM ciphertext in private_jwk', async () => {
      await idToken();
      const records = await server.ctx.store.signingKeys.list();
      expect(records.length).toBeGreaterThanOrEqual(2);
      for (const record of records) {
        expect(record.privateJwk).toMatch(/^enc:v1:[A-Za-z0-9_-]+$/);
        expect(record.privateJwk).not.toContain('"d"');
      }
    });

    it('cannot sign with a copy of the database and another secret key', async () => {
      const config = loadConfig({
        DATABASE_URL: server.databaseUrl,
        SECRET_KEY: 'another-secret-key-that-is-long-enough-0000',
        LOG_LEVEL: 'silent',
      });
      const store = await openStore(config.database);
      try {
        await expect(prepareSigningKeys(createAppContext(config, store, clock))).rejects.toThrow(
          /cannot decrypt the id_token signing key .*SECRET_KEY/,
        );
      } finally {
        await store.close();
      }
    });

    it('encrypts a key stored in plain text (before encryption existed) on first start, keeping its kid', async () => {
      const fresh = await startTestServer({ transport: 'inject', database, clock });
      try {
        const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
        const kid = 'legacy-es256';
        await fresh.ctx.store.signingKeys.insert({
          kid,
          alg: 'ES256',
          privateJwk: JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg: 'ES256' }),
          publicJwk: JSON.stringify({ ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' }),
          createdAt: clock.now() - 1000,
        });
        const { keys } = await json<{ keys: { kid: string; alg: string }[] }>(
          await fresh.fetch(`/.well-known/jwks.json`),
        );
        expect(keys.map((key) => key.alg)).toEqual(['RS256', 'ES256']);
        expect(keys[1]?.kid).toBe(kid);
        const stored = (await fresh.ctx.store.signingKeys.list()).find((record) => record.kid === kid);
        expect(stored?.privateJwk).toMatch(/^enc:v1:/);
      } finally {
        await fresh.close();
      }
    });

    // With SQLite the key file is made on first start; PostgreSQL requires SECRET_KEY (test/config).
    if (database === 'sqlite') {
      it('creates the secret key file beside the SQLite database with mode 0600', async () => {
        await idToken();
        const file = join(dirname(server.config.database.url.slice('sqlite:'.length)), 'secret.key');
        expect(statSync(file).mode & 0o777).toBe(0o600);
      });
    }
  });

  describe('rotation', () => {
    it('signs with the new key at once, keeps the old one published until its id_tokens expire, then retires it', async () => {
      const before = await idToken();
      const oldKid = decodeProtectedHeader(before).kid!;
      await rotateSigningKeys(server.ctx);
      const after = await idToken();
      const newKid = decodeProtectedHeader(after).kid!;
      expect(newKid).not.toBe(oldKid);
      // Both verify: the old token is still valid, so its key is still published.
      await verifyLikeARelyingParty(before);
      await verifyLikeARelyingParty(after);
      const states = await listSigningKeys(server.ctx);
      expect(states.find((s) => s.record.kid === oldKid)?.status).toBe('retiring');
      expect(states.find((s) => s.record.kid === newKid)?.status).toBe('active');
      expect(
        states
          .filter((s) => s.status === 'active')
          .map((s) => s.record.alg)
          .sort(),
      ).toEqual(['ES256', 'RS256']);

      // ACCESS_TOKEN_TTL (the id_token lifetime) and the reload and skew margins later: retired.
      offsetMs += (server.config.accessTokenTtl + 300) * 1000;
      const retired = await listSigningKeys(server.ctx);
      expect(retired.find((s) => s.record.kid === oldKid)?.status).toBe('retired');
      expect(await publishedKids()).not.toContain(oldKid);
      expect(await publishedKids()).toContain(newKid);
    });

    it('reaches another instance on the same database without a restart', async () => {
      const second = await startTestServer({
        transport: 'inject',
        database,
        databaseUrl: server.databaseUrl,
        clock,
      });
      try {
        const before = decodeProtectedHeader(await idToken(second)).kid;
        await rotateSigningKeys(server.ctx);
        const active = (await listSigningKeys(server.ctx)).find(
          (s) => s.status === 'active' && s.record.alg === 'RS256',
        );
        expect(active?.record.kid).not.toBe(before);
        offsetMs += 31_000;
        expect(decodeProtectedHeader(await idToken(second)).kid).toBe(active?.record.kid);
      } finally {
        await second.close();
      }
    });
  });
});
