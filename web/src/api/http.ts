/**
 * The JSON API's transport (README "Browser session API"): every answer is the envelope `{code, msg, data}`;
 * a non-zero code becomes an `ApiError`. Calls are same-origin with the session cookie; bodies are JSON,
 * which (with the browser's `Origin`) is what the server's CSRF check expects.
 */

import { EnvelopeCode } from '../../../src/shared/envelope';

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    /** The envelope's `code` (`EnvelopeCode`); 99 when the answer was not the envelope. */
    readonly code: number,
    message: string,
    /** Seconds from `Retry-After` on a 429, when the server sent it. */
    readonly retryAfter?: number,
    /** The envelope's `data` of an error answer (`{}` for most; code 3 says `reason` and `name`). */
    readonly data: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

/** Thrown when the server cannot be reached or answers something that is not the envelope. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

let passwordChangeRequired: () => void = () => undefined;

/**
 * Called whenever a call answers code 9 (the password must be changed first), so the pages can show the
 * change form wherever the user is (session.ts).
 */
export function onPasswordChangeRequired(listener: () => void): void {
  passwordChangeRequired = listener;
}

export async function call<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const init: RequestInit = { method, credentials: 'same-origin', cache: 'no-store', headers };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new NetworkError(error instanceof Error ? error.message : String(error));
  }
  let envelope: { code?: unknown; msg?: unknown; data?: unknown };
  try {
    envelope = (await response.json()) as typeof envelope;
  } catch {
    throw new NetworkError(`${method} ${path}: HTTP ${response.status} without a JSON answer`);
  }
  const code =
    typeof envelope.code === 'number' ? envelope.code : response.ok ? EnvelopeCode.Ok : EnvelopeCode.Internal;
  if (!response.ok || code !== EnvelopeCode.Ok) {
    if (code === EnvelopeCode.PasswordChangeRequired) passwordChangeRequired();
    const retryAfter = Number.parseInt(response.headers.get('Retry-After') ?? '', 10);
    throw new ApiError(
      response.status,
      code,
      typeof envelope.msg === 'string' ? envelope.msg : `HTTP ${response.status}`,
      Number.isFinite(retryAfter) ? retryAfter : undefined,
      typeof envelope.data === 'object' && envelope.data !== null
        ? (envelope.data as Record<string, unknown>)
        : {},
    );
  }
  return envelope.data as T;
}

/** A path segment, encoded. */
export const enc = encodeURIComponent;

/** `?a=1&b=2` from the parameters that have a value ('' when none has). */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
