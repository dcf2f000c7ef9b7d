/**
 * Checks of an app's logout settings (docs/interface.md#sessions-and-sign-out), with the redirect URI rules:
 * post-logout redirect URIs (0 to 10, no repeats) and the back-channel logout URI (optional).
 */
import { MAX_REDIRECT_URIS, redirectUriProblemKey, type RedirectUriProblem } from './validation';

export type LogoutUriProblem = RedirectUriProblem | 'uriDuplicate';

/** Each entry's problem (empty entries are ignored), as a locale key under `apps.`. */
export function postLogoutUriProblems(uris: readonly string[]): (LogoutUriProblem | undefined)[] {
  return uris.map((raw, index) => {
    const uri = raw.trim();
    if (uri === '') return undefined;
    const problem = redirectUriProblemKey(uri);
    if (problem) return problem;
    return uris.findIndex((other) => other.trim() === uri) < index ? 'uriDuplicate' : undefined;
  });
}

export function cleanUris(uris: readonly string[]): string[] {
  return uris.map((uri) => uri.trim()).filter((uri) => uri !== '');
}

export function backchannelUriProblem(uri: string): RedirectUriProblem | undefined {
  return uri.trim() === '' ? undefined : redirectUriProblemKey(uri.trim());
}

export function logoutFieldsValid(postLogoutUris: readonly string[], backchannelUri: string): boolean {
  return (
    cleanUris(postLogoutUris).length <= MAX_REDIRECT_URIS &&
    postLogoutUriProblems(postLogoutUris).every((problem) => problem === undefined) &&
    backchannelUriProblem(backchannelUri) === undefined
  );
}
