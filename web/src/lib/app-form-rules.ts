/**
 * The app form's address lists, checked with the server's rules before sending (docs/interface.md#admin-api):
 * redirect URIs row by row, and CAS service URLs as one list.
 */
import type { ComposerTranslation } from 'vue-i18n';
import { redirectUriProblemKey } from './validation';

/** Each row's problem ('' when fine); blank rows are fine here, and a row repeating an earlier one is not. */
export function redirectUriProblems(uris: readonly string[], t: ComposerTranslation): string[] {
  return uris.map((uri, index) => {
    if (uri.trim() === '') return '';
    const problem = redirectUriProblemKey(uri);
    if (problem) return t(`apps.${problem.key}`, { canonical: problem.canonical ?? '' });
    return uris.indexOf(uri) < index ? t('apps.uriDuplicate') : '';
  });
}

/** The CAS service URLs typed one per line: as typed, blank lines aside (the server says why one is not canonical). */
export function casServiceLines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

/** The first problem of the CAS service list, naming its line; '' when fine. */
export function casServicesProblem(services: readonly string[], max: number, t: ComposerTranslation): string {
  if (services.length > max) return t('cas.servicesTooMany');
  for (const [index, url] of services.entries()) {
    const problem = redirectUriProblemKey(url);
    if (problem) {
      return t('cas.serviceProblem', {
        n: index + 1,
        problem: t(`apps.${problem.key}`, { canonical: problem.canonical ?? '' }),
      });
    }
    if (services.indexOf(url) < index) {
      return t('cas.serviceProblem', { n: index + 1, problem: t('apps.uriDuplicate') });
    }
  }
  return '';
}
