import type { AUTHORIZATION_PARAMETERS } from '../../shared/authorization.js';
import type { AppRecord, CodeChallengeMethod } from '../../storage/store.js';

/**
 * The authorization request's parameters as the page, the GET endpoint or a form POST carry them
 * (docs/interface.md#authorization-page), not yet validated.
 */
export type AuthorizationParams = {
  readonly [name in (typeof AUTHORIZATION_PARAMETERS)[number]]?: string | undefined;
};

/**
 * How the response reaches the client (docs/interface.md#response-modes): `query` appends the parameters to
 * the redirect URI (RFC 6749 §4.1.2), `form_post` posts them there from an auto-submitting HTML form (OAuth 2.0
 * Form Post Response Mode §2).
 */
export type ResponseMode = 'query' | 'form_post';

/** Where errors may be sent once client and redirect URI are known good (RFC 6749 §4.1.2.1). */
export interface VerifiedRedirect {
  readonly app: AppRecord;
  readonly redirectUri: string;
  /** Echoed exactly as sent (RFC 6749 §4.1.2), when sent. */
  readonly state: string | undefined;
  /** How the response, an error included, is delivered. */
  readonly responseMode: ResponseMode;
}

export interface PkceChallenge {
  readonly codeChallenge: string;
  readonly codeChallengeMethod: CodeChallengeMethod;
}

/** OIDC Core §3.1.2.1 `prompt` values campus-sso acts on. */
export type Prompt = 'none' | 'login' | 'consent' | 'select_account';

/** A valid authorization request, ready for the user's decision. */
export interface AuthorizationRequest extends VerifiedRedirect {
  readonly scope: string | null;
  readonly nonce: string | null;
  readonly pkce: PkceChallenge | null;
  readonly prompt: ReadonlySet<Prompt>;
  /** OIDC Core §3.1.2.1 max_age, in seconds; null when not sent. */
  readonly maxAge: number | null;
}
