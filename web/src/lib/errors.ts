import { ApiError, EnvelopeCode, NetworkError } from '../api';

type Translate = (key: string, named?: Record<string, unknown>) => string;

/** The locale key (under `errors.`) for each envelope code (docs/interface.md#the-envelope). */
const CODE_KEYS: Readonly<Record<number, string>> = {
  [EnvelopeCode.InvalidRequest]: 'invalidRequest',
  [EnvelopeCode.InvalidClientOrGrant]: 'invalidRequest',
  [EnvelopeCode.InvalidClientOrRedirect]: 'invalidLink',
  [EnvelopeCode.NotSignedIn]: 'notSignedIn',
  [EnvelopeCode.Forbidden]: 'forbidden',
  [EnvelopeCode.NotFound]: 'notFound',
  [EnvelopeCode.Conflict]: 'conflict',
  [EnvelopeCode.Throttled]: 'throttled',
  [EnvelopeCode.SecondFactorRequired]: 'secondFactor',
  [EnvelopeCode.PasswordChangeRequired]: 'passwordChange',
  [EnvelopeCode.Internal]: 'internal',
};

/**
 * A sentence for an error that has no more specific message on the page, in the page's language: the
 * envelope code picks it, so no English server message shows on a Chinese page.
 */
export function describeError(t: Translate, error: unknown): string {
  if (error instanceof NetworkError) return t('common.networkError');
  if (error instanceof ApiError) return t(`errors.${CODE_KEYS[error.code] ?? 'internal'}`);
  return t('errors.internal');
}

/** The reasons the server gives for a refused new password (docs/interface.md#the-envelope: `data.reason`). */
const PASSWORD_REFUSALS = ['too_short', 'too_long', 'contains_uin', 'too_common', 'guessable'] as const;

/**
 * Why the server refused a new password, in the page's language, from the answer's `data.reason`; undefined
 * when `error` is not such a refusal.
 */
export function passwordRefusalText(t: Translate, error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  const reason = PASSWORD_REFUSALS.find((known) => known === error.data.reason);
  return reason === undefined ? undefined : t(`passwordRefused.${reason}`);
}

/** `passwordRefusalText` when the error is a refused password, else `describeError`. */
export function describePasswordError(t: Translate, error: unknown): string {
  return passwordRefusalText(t, error) ?? describeError(t, error);
}
