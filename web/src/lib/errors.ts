import { ApiError, NetworkError } from '../api';

type Translate = (key: string, named?: Record<string, unknown>) => string;

/** A sentence for an error that has no more specific message on the page. */
export function describeError(t: Translate, error: unknown): string {
  if (error instanceof NetworkError) return t('common.networkError');
  if (error instanceof ApiError) return t('common.unexpectedError', { msg: error.message });
  return t('common.unexpectedError', { msg: error instanceof Error ? error.message : String(error) });
}
