/**
 * The page's call (`POST /v1/oauth2/authorize`, JSON) answers the URL the browser goes to next. For a
 * `form_post` response that URL is this server's `GET /v1/oauth2/authorize/form-post?response=…`, which
 * renders the auto-submitting form (docs/interface.md#response-modes). The response travels sealed: AES-256-GCM
 * under a key of its own derived from the key-encryption key (src/domain/secret-box.ts), so the code is never
 * readable in this server's URL, and nobody can make this server post a form anywhere but to a registered
 * redirect URI. It opens for two minutes: the page follows it at once, and a page reopened from the history
 * later does not post the (used) code again (docs/security.md).
 */
import type { SecretKeySource } from '../../config/config.js';
import { loadSecretBox, type SecretBox } from '../../domain/secret-box.js';
import { type AuthorizationResponse, sentParameters } from './response.js';

/** The HKDF `info` of this box: its key opens nothing sealed by another box. */
const FORM_POST_RESPONSE_INFO = 'form_post authorization response';
/** The additional authenticated data: a value sealed for another purpose under this key does not open. */
const AAD = 'form_post';
/** How long a sealed response opens. */
export const SEALED_RESPONSE_TTL_MS = 2 * 60_000;

interface Sealed {
  readonly u: string;
  readonly p: [string, string][];
  readonly e: number;
}

export function loadFormPostBox(source: SecretKeySource): Promise<SecretBox> {
  return loadSecretBox(source, FORM_POST_RESPONSE_INFO);
}

export function sealResponse(box: SecretBox, response: AuthorizationResponse, now: number): string {
  const sealed: Sealed = {
    u: response.redirectUri,
    p: sentParameters(response),
    e: now + SEALED_RESPONSE_TTL_MS,
  };
  return box.seal(JSON.stringify(sealed), AAD);
}

/** The form_post response sealed by {@link sealResponse}, or undefined when forged, damaged or expired. */
export function openResponse(box: SecretBox, text: string, now: number): AuthorizationResponse | undefined {
  let sealed: Sealed;
  try {
    sealed = JSON.parse(box.open(text, AAD)) as Sealed;
  } catch {
    return undefined;
  }
  if (!(now < sealed.e)) return undefined;
  return { redirectUri: sealed.u, responseMode: 'form_post', parameters: Object.fromEntries(sealed.p) };
}
