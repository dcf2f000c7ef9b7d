/**
 * Errors of the enveloped JSON API (`/v1/account`, `/v1/admin`, the page's `/v1/oauth2` calls).
 * Rendered as `{code, msg, data:{}}` in one place: `src/http/responses.ts`.
 */
import type { PasswordRefusal } from '../domain/passwords.js';
import { EnvelopeCode } from '../shared/envelope.js';

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    /** The envelope's `code` (docs/interface.md#the-envelope). */
    readonly envelopeCode: EnvelopeCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    /** The envelope's `data`: `{}` for most errors; a refused password says `reason`. */
    readonly data: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

export const badRequest = (msg: string): ApiError => new ApiError(400, EnvelopeCode.InvalidRequest, msg);
/**
 * A new password the policy refused (docs/interface.md#the-envelope): `msg` as it always was (prefixed by the
 * field when the route has several), and the policy's stable `reason` in `data` for the pages to translate.
 */
export const passwordRefused = (refusal: PasswordRefusal, field?: string): ApiError =>
  new ApiError(
    400,
    EnvelopeCode.InvalidRequest,
    field === undefined ? refusal.message : `${field}: ${refusal.message}`,
    {},
    { reason: refusal.reason },
  );
export const notSignedIn = (msg = 'not signed in'): ApiError =>
  new ApiError(401, EnvelopeCode.NotSignedIn, msg);
/** `data` may warn of the account's lock (`lockWarning` in src/domain/login-throttle.ts). */
export const wrongCredentials = (data: Readonly<Record<string, unknown>> = {}): ApiError =>
  new ApiError(401, EnvelopeCode.InvalidRequest, 'wrong uin or password', {}, data);
export const forbidden = (msg: string): ApiError => new ApiError(403, EnvelopeCode.Forbidden, msg);
export const passwordChangeRequired = (): ApiError =>
  new ApiError(
    403,
    EnvelopeCode.PasswordChangeRequired,
    'your password was set by someone else: change it first (POST /v1/account/password)',
  );
/** docs/interface.md#second-factor: adding or removing a factor needs the password typed again. */
export const passwordAgainRequired = (): ApiError =>
  forbidden('type your password again: changing a second factor needs it, or a sign-in under 5 minutes old');
export const secondFactorRequired = (msg: string): ApiError =>
  new ApiError(403, EnvelopeCode.SecondFactorRequired, msg);
export const notFound = (msg: string): ApiError => new ApiError(404, EnvelopeCode.NotFound, msg);
export const conflict = (msg: string): ApiError => new ApiError(409, EnvelopeCode.Conflict, msg);
export const tooManyAttempts = (retryAfterSeconds: number): ApiError =>
  new ApiError(429, EnvelopeCode.Throttled, `too many attempts; try again in ${retryAfterSeconds} s`, {
    'retry-after': String(retryAfterSeconds),
  });

/** docs/interface.md#the-schools-directory: a directory user's sign-in while the directory cannot be asked. */
export const directoryUnavailable = (): ApiError =>
  new ApiError(
    503,
    EnvelopeCode.DirectoryUnavailable,
    'the school directory (LDAP) is not answering, so directory accounts cannot sign in right now; try again later',
  );

/** docs/interface.md#the-schools-directory: the directory owns a directory user's password. */
export const directoryOwnsPassword = (message: string): ApiError => forbidden(message);
