import type { AppRecord, CodeChallengeMethod } from '../../storage/store.js';

/** The authorization request's parameters as the page sends them (SPEC §2), not yet validated. */
export interface AuthorizationParams {
  readonly client_id?: string | undefined;
  readonly redirect_uri?: string | undefined;
  readonly state?: string | undefined;
  readonly response_type?: string | undefined;
  readonly scope?: string | undefined;
  readonly nonce?: string | undefined;
  readonly code_challenge?: string | undefined;
  readonly code_challenge_method?: string | undefined;
}

/** Where errors may be sent once client and redirect URI are known good (RFC 6749 §4.1.2.1). */
export interface VerifiedRedirect {
  readonly app: AppRecord;
  readonly redirectUri: string;
  /** Echoed exactly as sent (RFC 6749 §4.1.2), when sent. */
  readonly state: string | undefined;
}

export interface PkceChallenge {
  readonly codeChallenge: string;
  readonly codeChallengeMethod: CodeChallengeMethod;
}

/** A valid authorization request, ready for the user's decision. */
export interface AuthorizationRequest extends VerifiedRedirect {
  readonly scope: string | null;
  readonly nonce: string | null;
  readonly pkce: PkceChallenge | null;
}
