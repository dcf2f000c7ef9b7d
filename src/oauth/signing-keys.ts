/**
 * The id_token signing key (SPEC §6): one ES256 key pair, generated on first need and kept in the database so
 * every instance signs with the same key. Two instances starting together may both generate one: each
 * inserts its own, re-reads the table and signs with the oldest, and the JWKS publishes every stored key,
 * so a token signed by either one still verifies.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { AppContext } from '../app-context.js';
import type { SigningKeyRecord, Store } from '../storage/store.js';

export const ID_TOKEN_ALG = 'ES256';

export interface SigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: Awaited<ReturnType<typeof importJWK>>;
}

/** Per store, so each test server (and each database) has its own. Only a cache: the database is the truth. */
const cache = new WeakMap<Store, Promise<SigningKey>>();

function oldest(keys: readonly SigningKeyRecord[]): SigningKeyRecord | undefined {
  return [...keys].sort((a, b) => a.createdAt - b.createdAt || (a.kid < b.kid ? -1 : 1))[0];
}

async function generateKeyRecord(now: number): Promise<SigningKeyRecord> {
  const { privateKey, publicKey } = await generateKeyPair(ID_TOKEN_ALG, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const privateJwk = await exportJWK(privateKey);
  return {
    kid,
    alg: ID_TOKEN_ALG,
    privateJwk: JSON.stringify({ ...privateJwk, kid, alg: ID_TOKEN_ALG }),
    publicJwk: JSON.stringify({ ...publicJwk, kid, alg: ID_TOKEN_ALG, use: 'sig' }),
    createdAt: now,
  };
}

async function loadOrCreate(ctx: AppContext): Promise<SigningKey> {
  let record = oldest(await ctx.store.signingKeys.list());
  if (!record) {
    await ctx.store.signingKeys.insert(await generateKeyRecord(ctx.clock.now()));
    // Re-read: another instance may have inserted its key at the same moment; everyone uses the oldest.
    record = oldest(await ctx.store.signingKeys.list());
    if (!record) throw new Error('the signing key vanished right after it was stored');
  }
  const privateKey = await importJWK(JSON.parse(record.privateJwk) as JWK, record.alg);
  return { kid: record.kid, alg: record.alg, privateKey };
}

/** The key id_tokens are signed with. */
export function signingKey(ctx: AppContext): Promise<SigningKey> {
  let pending = cache.get(ctx.store);
  if (!pending) {
    pending = loadOrCreate(ctx);
    // A failure (database down) must not be remembered: the next request tries again.
    pending.catch(() => cache.delete(ctx.store));
    cache.set(ctx.store, pending);
  }
  return pending;
}

/** RFC 7517 §5: the public keys, for `/.well-known/jwks.json`. Read from the database every time (see above). */
export async function publicJwks(ctx: AppContext): Promise<{ keys: JWK[] }> {
  await signingKey(ctx);
  const keys = await ctx.store.signingKeys.list();
  return { keys: keys.map((key) => JSON.parse(key.publicJwk) as JWK) };
}
