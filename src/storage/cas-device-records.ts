/**
 * The records of sign-ins for other kinds of clients: CAS tickets (docs/interface.md#cas-protocol), phone
 * sign-ins (docs/interface.md#sign-in-with-your-phone) and device requests
 * (docs/interface.md#device-authorization-grant).
 */

/** A CAS service ticket (docs/interface.md#cas-protocol): stored under its SHA-256 digest only. */
export interface CasTicketRecord {
  readonly ticketHash: string;
  readonly clientId: string;
  /** The service URL it was issued for, exactly as asked (canonical). */
  readonly service: string;
  readonly uin: number;
  /** The session it was issued in: ending that session voids it, or (validated) sends its single logout. */
  readonly sid: string;
  /** Issued right after the password was typed (CAS 3.0 `isFromNewLogin`, `renew`). */
  readonly fromNewLogin: boolean;
  /** When the user signed in (the session's start). */
  readonly authTime: number;
  /** How the user signed in (RFC 8176). */
  readonly amr: readonly string[];
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly usedAt: number | null;
}
/** docs/interface.md#sign-in-with-your-phone: waiting, approved by a phone, ended by a wrong pick, or used. */
export type PhoneSignInStatus = 'pending' | 'approved' | 'failed' | 'used';

/**
 * What a phone sign-in and a device's request share: a device asks to be signed in, and waits until a
 * signed-in user decides on their own screen, or until it expires. `S`: its statuses.
 */
export interface ApprovalRequest<S extends string> {
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly status: S;
  /** Who decided, once decided. */
  readonly uin: number | null;
  /** The asking device's address and user agent, shown to the user asked to approve it (RFC 8628 §5.4). */
  readonly ip: string | null;
  readonly userAgent: string | null;
}

/**
 * A lab computer's request to be signed in by a phone, stored under the hashes of its id and secret; the
 * phone's user decides it.
 */
export interface PhoneSignInRecord extends ApprovalRequest<PhoneSignInStatus> {
  readonly idHash: string;
  readonly secretHash: string;
  readonly number: number;
  readonly choices: readonly number[];
  /** How the phone's session signed in, once approved. */
  readonly amr: readonly string[] | null;
}

/** RFC 8628 §3: a device's request waits for the user's decision, then is approved or denied, once. */
export type DeviceAuthorizationStatus = 'pending' | 'approved' | 'denied';

/** A device's request (RFC 8628 §3.1), stored under the keys of its two codes, never the codes. */
export interface DeviceAuthorizationRecord extends ApprovalRequest<DeviceAuthorizationStatus> {
  /** credentialKey of the device_code; an approval stores its authorization code under the same key. */
  readonly deviceCodeHash: string;
  /** SHA-256 hex of the normalized user code. */
  readonly userCodeHash: string;
  readonly clientId: string;
  readonly scope: string | null;
  /** RFC 8628 §3.5: the current polling interval in seconds (grown by each slow_down). */
  readonly intervalS: number;
  readonly lastPolledAt: number | null;
  readonly decidedAt: number | null;
}
