/** The repositories of CAS tickets, device requests and phone sign-ins (see cas-device-records.ts). */
import type { CasTicketRecord, DeviceAuthorizationRecord, PhoneSignInRecord } from './records.js';

/** CAS service tickets (docs/interface.md#cas-protocol). */
export interface CasTicketRepository {
  insert(ticket: CasTicketRecord): Promise<void>;
  /**
   * Marks the ticket used and answers it, in one statement: of concurrent redemptions exactly one gets it
   * (CAS 3.0 §3.1.1: a ticket is good for one validation attempt, whatever its outcome). Undefined when
   * unknown or used already; expiry is the caller's check.
   */
  redeem(ticketHash: string, now: number): Promise<CasTicketRecord | undefined>;
  /** The ticket, used or not; undefined when unknown (never issued, or purged). */
  find(ticketHash: string): Promise<CasTicketRecord | undefined>;
  /**
   * Records a successful validation with the sealed ticket (its single logout's SessionIndex), only while
   * its session lives; answers false when the session ended meanwhile.
   */
  recordValidation(ticketHash: string, sid: string, sealedTicket: string, now: number): Promise<boolean>;
  /** Whether the session already received a ticket marked `fromNewLogin` (a sign-in counts once). */
  hasNewLoginTicket(sid: string): Promise<boolean>;
  /** Forgets unvalidated tickets past their expiry and tickets of sessions that are gone. */
  purgeExpired(now: number): Promise<number>;
}

/** RFC 8628: device requests, by the keys of their codes (docs/interface.md#device-authorization-grant). */
export interface DeviceAuthorizationRepository {
  /** Answers false, storing nothing, when either code's key is taken already (draw new codes). */
  insert(request: DeviceAuthorizationRecord): Promise<boolean>;
  findByDeviceCode(deviceCodeHash: string): Promise<DeviceAuthorizationRecord | undefined>;
  findByUserCode(userCodeHash: string): Promise<DeviceAuthorizationRecord | undefined>;
  /** Records a poll at `now` and the interval the next one must wait (RFC 8628 §3.5). */
  recordPoll(deviceCodeHash: string, now: number, intervalS: number): Promise<void>;
  /**
   * Approves or denies the request, only if it is still pending and unexpired at `now`; answers whether this
   * call decided it (of two concurrent decisions, one wins).
   */
  decide(userCodeHash: string, decision: 'approved' | 'denied', uin: number, now: number): Promise<boolean>;
  purgeExpired(now: number): Promise<number>;
}

/** docs/interface.md#sign-in-with-your-phone: each change is one conditional statement, so each happens once. */
export interface PhoneSignInRepository {
  insert(request: PhoneSignInRecord): Promise<void>;
  findById(idHash: string): Promise<PhoneSignInRecord | undefined>;
  findBySecret(secretHash: string): Promise<PhoneSignInRecord | undefined>;
  /** Approves it for `uin` if it is pending and unexpired at `now`; answers whether this call did. */
  approve(idHash: string, uin: number, amr: readonly string[], now: number): Promise<boolean>;
  /** Ends a pending request (a wrong pick); answers whether this call did. */
  fail(idHash: string): Promise<boolean>;
  /** Marks an approved, unexpired request used; answers whether this call did (the computer signs in once). */
  use(secretHash: string, now: number): Promise<boolean>;
  purgeExpired(now: number): Promise<number>;
}
