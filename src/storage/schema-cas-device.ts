/** The tables of CAS tickets, device requests and phone sign-ins as Kysely sees them (see schema.ts). */

/** A CAS service ticket (docs/interface.md#cas-protocol), stored as its SHA-256 digest. */
export interface CasTicketsTable {
  ticket_hash: string;
  client_id: string;
  service: string;
  uin: number;
  sid: string;
  from_new_login: number;
  auth_time: number;
  amr: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  validated_at: number | null;
  sealed_ticket: string | null;
}

/** A device's request (RFC 8628 §3.1) awaiting, or after, the user's decision (0014-device-grant). */
export interface DeviceAuthorizationsTable {
  device_code_hash: string;
  user_code_hash: string;
  client_id: string;
  scope: string | null;
  created_at: number;
  expires_at: number;
  interval_s: number;
  last_polled_at: number | null;
  status: string;
  uin: number | null;
  decided_at: number | null;
  ip: string | null;
  user_agent: string | null;
}

/** A lab computer's "Sign in with your phone" request (0014-device-grant). */
export interface PhoneSignInsTable {
  id_hash: string;
  secret_hash: string;
  number: number;
  choices: string;
  created_at: number;
  expires_at: number;
  status: string;
  uin: number | null;
  amr: string | null;
  ip: string | null;
  user_agent: string | null;
}
