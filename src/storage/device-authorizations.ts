/** The device_authorizations table (RFC 8628): its queries and row mapper (docs/architecture.md#storage). */
import { toApprovalRequest } from './approval-request-rows.js';
import { columns } from './columns.js';
import { Repository, inserted, nullableNumber } from './connection.js';
import type { Row } from './schema.js';
import type { DeviceAuthorizationRecord, DeviceAuthorizationRepository } from './store.js';

function toDeviceAuthorization(row: Row<'device_authorizations'>): DeviceAuthorizationRecord {
  return {
    deviceCodeHash: row.device_code_hash,
    userCodeHash: row.user_code_hash,
    clientId: row.client_id,
    scope: row.scope,
    intervalS: Number(row.interval_s),
    lastPolledAt: nullableNumber(row.last_polled_at),
    decidedAt: nullableNumber(row.decided_at),
    ...toApprovalRequest<DeviceAuthorizationRecord>(row),
  };
}

function deviceAuthorizationRow(request: DeviceAuthorizationRecord): Row<'device_authorizations'> {
  return columns(request);
}

export class DeviceAuthorizations extends Repository implements DeviceAuthorizationRepository {
  async insert(request: DeviceAuthorizationRecord): Promise<boolean> {
    const query = this.db.insertInto('device_authorizations').values(deviceAuthorizationRow(request));
    return inserted(await query.onConflict((oc) => oc.doNothing()).executeTakeFirst());
  }

  findByDeviceCode(deviceCodeHash: string): Promise<DeviceAuthorizationRecord | undefined> {
    return this.findBy('device_authorizations', 'device_code_hash', deviceCodeHash, toDeviceAuthorization);
  }

  findByUserCode(userCodeHash: string): Promise<DeviceAuthorizationRecord | undefined> {
    return this.findBy('device_authorizations', 'user_code_hash', userCodeHash, toDeviceAuthorization);
  }

  recordPoll(deviceCodeHash: string, now: number, intervalS: number): Promise<void> {
    const changes = { last_polled_at: now, interval_s: intervalS };
    return this.updateBy('device_authorizations', 'device_code_hash', deviceCodeHash, changes);
  }

  async decide(
    userCodeHash: string,
    decision: 'approved' | 'denied',
    uin: number,
    now: number,
  ): Promise<boolean> {
    // One conditional statement: of two concurrent decisions only one finds it pending.
    const changes = { status: decision, uin, decided_at: now };
    return this.moveRequest('device_authorizations', 'user_code_hash', userCodeHash, 'pending', changes, now);
  }

  purgeExpired(now: number): Promise<number> {
    return this.deleteExpired('device_authorizations', now);
  }
}
