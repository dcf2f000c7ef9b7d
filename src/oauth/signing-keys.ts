/**
 * The id_token signing keys (docs/interface.md#openid-connect): RS256, which OIDC Core §15.1 makes mandatory
 * and which relying parties accept by default, signs every id_token; an ES256 key is published beside it.
 * Keys live in the database so every instance signs with the same ones, their private halves encrypted
 * (key-encryption.ts).
 *
 * Rotation (`campus-sso keys rotate`) inserts a new pair; for each algorithm the newest key is active. A
 * superseded key stays in the JWKS while id_tokens it signed may still be valid, then is retired: it no
 * longer verifies anything. This is derived from the keys' creation times alone, so instances agree on it
 * without coordination, and each instance re-reads the keys every RELOAD_INTERVAL_MS (one cheap query), so a
 * rotation reaches every instance without a restart.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Clock } from '../clock.js';
import type { Config } from '../config/config.js';
import type { SecretBox } from '../domain/secret-box.js';
import type { SigningKeyRecord, Store } from '../storage/store.js';
import { missingSecretKeyFile } from '../domain/secret-box.js';
import {
  KeyEncryptionError,
  decryptPrivateJwk,
  encryptPrivateJwk,
  isEncrypted,
  loadSigningKeyBox,
} from './key-encryption.js';

/** OIDC Discovery §3: the algorithms listed in metadata, RS256 first. */
export const ID_TOKEN_ALGS = ['RS256', 'ES256'] as const;
export type IdTokenAlg = (typeof ID_TOKEN_ALGS)[number];
/** The algorithm every id_token is signed with (OIDC Core §15.1). */
export const ID_TOKEN_ALG: IdTokenAlg = 'RS256';

/** How often an instance re-reads the keys, so a rotation elsewhere is picked up. */
const RELOAD_INTERVAL_MS = 30_000;
/** Clock skew a relying party may allow beyond `exp`, on top of the reload interval. */
const VERIFICATION_LEEWAY_MS = 60_000;

export type KeyStatus = 'active' | 'retiring' | 'retired';

export interface SigningKeyState {
  readonly record: SigningKeyRecord;
  readonly status: KeyStatus;
  /** When a superseded key stops being published (epoch ms); null for an active key. */
  readonly retiresAt: number | null;
}

export interface SigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: Awaited<ReturnType<typeof importJWK>>;
}

type PrivateKey = SigningKey['privateKey'];

/**
 * What the signing keys use (fosite's per-handler storage interfaces): the key table (and the TOTP secrets,
 * to tell whether the database holds sealed secrets), the key-encryption key's source, a clock, and the
 * access token lifetime (an id_token's). The application context is one.
 */
export interface SigningKeyContext {
  readonly store: Pick<Store, 'signingKeys' | 'secondFactors'>;
  readonly clock: Clock;
  readonly config: Pick<Config, 'secretKey' | 'accessTokenTtl'>;
}

const byAge = (a: SigningKeyRecord, b: SigningKeyRecord): number =>
  a.createdAt - b.createdAt || (a.kid < b.kid ? -1 : a.kid > b.kid ? 1 : 0);

/**
 * Every key with its status at `now`. A key is superseded when a newer key of its algorithm exists; an
 * id_token it signed lives `idTokenLifetimeMs`, and instances may go on signing with it until their next
 * reload, so it stays published that long (plus leeway) after being superseded.
 */
export function keyStates(
  records: readonly SigningKeyRecord[],
  now: number,
  idTokenLifetimeMs: number,
): SigningKeyState[] {
  const sorted = [...records].sort(byAge);
  return sorted.map((record) => {
    const successor = sorted.find((other) => other.alg === record.alg && byAge(other, record) > 0);
    if (!successor) return { record, status: 'active', retiresAt: null };
    const retiresAt = successor.createdAt + idTokenLifetimeMs + RELOAD_INTERVAL_MS + VERIFICATION_LEEWAY_MS;
    return { record, status: now < retiresAt ? 'retiring' : 'retired', retiresAt };
  });
}

async function generateKeyRecord(alg: IdTokenAlg, box: SecretBox, now: number): Promise<SigningKeyRecord> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  // RFC 7638: the kid is the key's thumbprint.
  const kid = await calculateJwkThumbprint(publicJwk);
  const privateJwk = JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg });
  return {
    kid,
    alg,
    privateJwk: encryptPrivateJwk(box, kid, privateJwk),
    publicJwk: JSON.stringify({ ...publicJwk, kid, alg, use: 'sig' }),
    createdAt: now,
  };
}

interface KeyRing {
  /** Seals and opens the private keys (key-encryption.ts). */
  readonly box: SecretBox;
  /** Decrypted and imported private keys by kid (each decrypted once per process). */
  readonly privateKeys: Map<string, PrivateKey>;
  active: SigningKey;
  loadedAt: number;
}

/** Per store, so each test server (and each database) has its own. Only a cache: the database is the truth. */
const rings = new WeakMap<SigningKeyContext['store'], Promise<KeyRing>>();

function idTokenLifetimeMs(ctx: SigningKeyContext): number {
  // id-token.ts: an id_token expires with the access token issued beside it.
  return ctx.config.accessTokenTtl * 1000;
}

/**
 * Encrypts keys still stored in plain text (written before encryption at rest existed) and creates a key
 * for any algorithm that has none (a first start, or a database from before RS256). Idempotent, and safe
 * when several instances run it at once: each keeps its own fresh key, and the newest one wins.
 */
async function ensureKeys(ctx: SigningKeyContext, box: SecretBox): Promise<SigningKeyRecord[]> {
  let records = await ctx.store.signingKeys.list();
  for (const record of records) {
    if (isEncrypted(record.privateJwk)) continue;
    const encrypted = encryptPrivateJwk(box, record.kid, record.privateJwk);
    await ctx.store.signingKeys.replacePrivateJwk(record.kid, record.privateJwk, encrypted);
  }
  const missing = ID_TOKEN_ALGS.filter((alg) => !records.some((record) => record.alg === alg));
  for (const alg of missing) {
    await ctx.store.signingKeys.insert(await generateKeyRecord(alg, box, ctx.clock.now()));
  }
  if (missing.length > 0 || records.some((record) => !isEncrypted(record.privateJwk))) {
    records = await ctx.store.signingKeys.list();
  }
  return records;
}

async function activeKey(
  ring: Pick<KeyRing, 'box' | 'privateKeys'>,
  records: readonly SigningKeyRecord[],
): Promise<SigningKey> {
  const newest = records
    .filter((record) => record.alg === ID_TOKEN_ALG)
    .sort(byAge)
    .at(-1);
  if (!newest) throw new Error(`no ${ID_TOKEN_ALG} signing key is stored`);
  let privateKey = ring.privateKeys.get(newest.kid);
  if (!privateKey) {
    const jwk = JSON.parse(decryptPrivateJwk(ring.box, newest.kid, newest.privateJwk)) as JWK;
    privateKey = await importJWK(jwk, newest.alg);
    ring.privateKeys.set(newest.kid, privateKey);
  }
  return { kid: newest.kid, alg: newest.alg, privateKey };
}

async function openKeyRing(ctx: SigningKeyContext): Promise<KeyRing> {
  const missing = missingSecretKeyFile(ctx.config.secretKey);
  // docs/operations.md#backups: a database whose keys were sealed with a key file (a restored backup, say)
  // never gets a new one, which would open none of them: the start stops, and nothing is written.
  if (missing !== undefined && (await holdsSealedSecrets(ctx.store))) {
    throw new KeyEncryptionError(
      `the key file ${missing} was not found; this database's signing keys and second-factor secrets are ` +
        'sealed with it. Put back the secret.key that was kept with this database (or set SECRET_KEY_FILE ' +
        'to it); nothing was written',
    );
  }
  const box = await loadSigningKeyBox(ctx.config.secretKey);
  const records = await ensureKeys(ctx, box);
  const privateKeys = new Map<string, PrivateKey>();
  const active = await activeKey({ box, privateKeys }, records);
  return { box, privateKeys, active, loadedAt: ctx.clock.now() };
}

/** Whether the database holds a signing key or TOTP secret sealed with a key-encryption key. */
async function holdsSealedSecrets(store: SigningKeyContext['store']): Promise<boolean> {
  const keys = await store.signingKeys.list();
  if (keys.some((record) => isEncrypted(record.privateJwk))) return true;
  return (await store.secondFactors.listTotpSecrets()).length > 0;
}

function keyRing(ctx: SigningKeyContext): Promise<KeyRing> {
  let pending = rings.get(ctx.store);
  if (!pending) {
    pending = openKeyRing(ctx);
    // A failure (database down, wrong key) must not be remembered: the next request tries again.
    pending.catch(() => rings.delete(ctx.store));
    rings.set(ctx.store, pending);
  }
  return pending;
}

/**
 * Opens the keys at start-up: reads (or creates) the key-encryption key, encrypts keys stored in plain
 * text, creates missing ones. Fails — and the server does not start — when the key-encryption key is wrong.
 */
export async function prepareSigningKeys(ctx: SigningKeyContext): Promise<void> {
  await keyRing(ctx);
}

/** The key id_tokens are signed with: the newest RS256 key, re-read every RELOAD_INTERVAL_MS. */
export async function signingKey(ctx: SigningKeyContext): Promise<SigningKey> {
  const ring = await keyRing(ctx);
  const now = ctx.clock.now();
  if (now - ring.loadedAt >= RELOAD_INTERVAL_MS) {
    ring.loadedAt = now;
    ring.active = await activeKey(ring, await ctx.store.signingKeys.list());
  }
  return ring.active;
}

/** The kids of the stored keys this key-encryption key cannot open (`campus-sso check`). */
export async function unreadableSigningKeys(ctx: SigningKeyContext): Promise<string[]> {
  const box = await loadSigningKeyBox(ctx.config.secretKey);
  const unreadable: string[] = [];
  for (const record of await ctx.store.signingKeys.list()) {
    try {
      if (isEncrypted(record.privateJwk)) decryptPrivateJwk(box, record.kid, record.privateJwk);
    } catch {
      unreadable.push(record.kid);
    }
  }
  return unreadable;
}

/** Every stored key with its status, oldest first (`campus-sso keys list`). */
export async function listSigningKeys(ctx: SigningKeyContext): Promise<SigningKeyState[]> {
  await keyRing(ctx);
  return keyStates(await ctx.store.signingKeys.list(), ctx.clock.now(), idTokenLifetimeMs(ctx));
}

/**
 * `campus-sso keys rotate`: a new RS256 and ES256 pair becomes active at once; the previous keys keep being
 * published until the id_tokens they signed have expired.
 */
export async function rotateSigningKeys(ctx: SigningKeyContext): Promise<SigningKeyRecord[]> {
  const ring = await keyRing(ctx);
  const now = ctx.clock.now();
  const created: SigningKeyRecord[] = [];
  for (const alg of ID_TOKEN_ALGS) created.push(await generateKeyRecord(alg, ring.box, now));
  for (const record of created) await ctx.store.signingKeys.insert(record);
  // This process signs with the new key from now on; other instances follow at their next reload.
  ring.active = await activeKey(ring, await ctx.store.signingKeys.list());
  ring.loadedAt = now;
  return created;
}

/**
 * RFC 7517 §5: the public keys, for `/.well-known/jwks.json`: the active and retiring ones. Read from the
 * database every time, so a rotation on another instance is published at once.
 */
export async function publicJwks(ctx: SigningKeyContext): Promise<{ keys: JWK[] }> {
  const states = await listSigningKeys(ctx);
  // RS256 first: some relying parties take the first key that fits.
  const published = states
    .filter((state) => state.status !== 'retired')
    .sort(
      (a, b) =>
        ID_TOKEN_ALGS.indexOf(a.record.alg as IdTokenAlg) - ID_TOKEN_ALGS.indexOf(b.record.alg as IdTokenAlg),
    );
  return { keys: published.map((state) => JSON.parse(state.record.publicJwk) as JWK) };
}
