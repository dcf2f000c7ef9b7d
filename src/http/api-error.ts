/**
 * Errors of the enveloped JSON API (`/v1/account`, `/v1/admin`, the page's `/v1/oauth2` calls).
 * Rendered as `{code, msg, data:{}}` in one place: `src/http/responses.ts`.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export const badRequest = (msg: string): ApiError => new ApiError(400, 1, msg);
export const notSignedIn = (msg = 'not signed in'): ApiError => new ApiError(401, -1, msg);
export const wrongCredentials = (): ApiError => new ApiError(401, 1, 'wrong uin or password');
export const forbidden = (msg: string): ApiError => new ApiError(403, 4, msg);
export const notFound = (msg: string): ApiError => new ApiError(404, 5, msg);
export const conflict = (msg: string): ApiError => new ApiError(409, 6, msg);
export const tooManyAttempts = (retryAfterSeconds: number): ApiError =>
  new ApiError(429, 7, `too many attempts; try again in ${retryAfterSeconds} s`, {
    'retry-after': String(retryAfterSeconds),
  });
