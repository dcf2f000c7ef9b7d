/** The second factors' tables as Kysely sees them (see schema.ts). */

export interface TotpCredentialsTable {
  uin: number;
  sealed_secret: string;
  confirmed_at: number | null;
  last_used_step: number | null;
  created_at: number;
}

export interface PasskeysTable {
  id: string;
  uin: number;
  credential_id: string;
  public_key: string;
  counter: number;
  /** JSON array of transport hints. */
  transports: string;
  device_type: string;
  backed_up: number;
  name: string;
  created_at: number;
  last_used_at: number | null;
}

export interface RecoveryCodesTable {
  uin: number;
  code_hash: string;
  created_at: number;
  used_at: number | null;
}

export interface WebauthnChallengesTable {
  challenge_hash: string;
  purpose: string;
  uin: number | null;
  expires_at: number;
}

export interface PendingSignInsTable {
  id_hash: string;
  uin: number;
  failures: number;
  created_at: number;
  expires_at: number;
  /** 0/1: signed in with "This is a shared computer". */
  shared: number;
}

/** When a user last signed in with the password and a second factor (docs/security.md#second-factors). */
export interface SecondFactorSignInsTable {
  uin: number;
  signed_in_at: number;
}
