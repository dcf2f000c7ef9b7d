/**
 * An unbounded in-memory adapter for oidc-provider. The bundled memory adapter is an LRU of 1,000 entries,
 * so codes minted before a run would be evicted before they are used; this one keeps everything, with the
 * same semantics (expiry, consume, the grant index used to revoke everything issued from a replayed code).
 * Every operation is O(1), like the SQL lookups campus-sso does, so neither side is favoured.
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';

interface Entry {
  readonly payload: AdapterPayload;
  /** Epoch ms, or Infinity when the model has no expiry. */
  readonly expiresAt: number;
}

const entries = new Map<string, Entry>();
const grantMembers = new Map<string, Set<string>>();
const sessionUids = new Map<string, string>();
const userCodes = new Map<string, string>();

const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

export class MapAdapter implements Adapter {
  constructor(private readonly model: string) {}

  private key(id: string): string {
    return `${this.model}:${id}`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const key = this.key(id);
    const expiresAt = typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Infinity;
    entries.set(key, { payload, expiresAt });
    if (GRANTABLE.has(this.model) && typeof payload.grantId === 'string') {
      let members = grantMembers.get(payload.grantId);
      if (members === undefined) grantMembers.set(payload.grantId, (members = new Set()));
      members.add(key);
    }
    if (this.model === 'Session' && typeof payload.uid === 'string') sessionUids.set(payload.uid, id);
    if (typeof payload.userCode === 'string') userCodes.set(payload.userCode, id);
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const key = this.key(id);
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry.payload;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const id = sessionUids.get(uid);
    return id === undefined ? undefined : this.find(id);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const id = userCodes.get(userCode);
    return id === undefined ? undefined : this.find(id);
  }

  async consume(id: string): Promise<void> {
    const entry = entries.get(this.key(id));
    if (entry !== undefined) entry.payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id: string): Promise<void> {
    const key = this.key(id);
    const entry = entries.get(key);
    entries.delete(key);
    const grantId = entry?.payload.grantId;
    if (typeof grantId === 'string') grantMembers.get(grantId)?.delete(key);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const members = grantMembers.get(grantId);
    if (members === undefined) return;
    for (const key of members) entries.delete(key);
    grantMembers.delete(grantId);
  }
}

/** How many entries the adapter holds (reported by the peer, to show nothing was evicted). */
export function mapAdapterSize(): number {
  return entries.size;
}
