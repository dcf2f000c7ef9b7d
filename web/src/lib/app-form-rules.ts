/**
 * The app form's addresses, checked with the server's redirect URI rules before sending
 * (docs/interface.md#admin-api): redirect URIs row by row, CAS service URLs as one list, and the homepage.
 */
import type { ComposerTranslation } from 'vue-i18n';
import { redirectUriProblemKey } from './validation';

/** What breaks the redirect URI rules in `uri`, in words; '' when nothing. */
function uriProblemText(uri: string, t: ComposerTranslation): string {
  const problem = redirectUriProblemKey(uri);
  return problem ? t(`apps.${problem.key}`, { canonical: problem.canonical ?? '' }) : '';
}

/** A list entry's problem: what breaks the rules, else whether an earlier entry is the same; '' when fine. */
function entryProblem(uri: string, index: number, list: readonly string[], t: ComposerTranslation): string {
  return uriProblemText(uri, t) || (list.indexOf(uri) < index ? t('apps.uriDuplicate') : '');
}

/** Each row's problem ('' when fine); blank rows are fine here. */
export function redirectUriProblems(uris: readonly string[], t: ComposerTranslation): string[] {
  return uris.map((uri, index) => (uri.trim() === '' ? '' : entryProblem(uri, index, uris, t)));
}

/**
 * The CAS service URLs typed one per line: as typed, blank lines aside (the server says why one is not
 * canonical).
 */
export function casServiceLines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

/** The first problem of the CAS service list, naming its line; '' when fine. */
export function casServicesProblem(services: readonly string[], max: number, t: ComposerTranslation): string {
  if (services.length > max) return t('cas.servicesTooMany');
  for (const [index, url] of services.entries()) {
    const problem = entryProblem(url, index, services, t);
    if (problem) return t('cas.serviceProblem', { n: index + 1, problem });
  }
  return '';
}

/** An optional address (the launcher's homepage): blank is fine, else the rules apply to it trimmed. */
export function optionalUrlProblem(url: string, t: ComposerTranslation): string {
  return url.trim() === '' ? '' : uriProblemText(url.trim(), t);
}
