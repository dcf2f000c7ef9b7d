import { InvalidRequest } from '../errors.js';
import { present } from '../parameters.js';
import { scopeTokens } from '../scopes.js';
import type { AuthorizationParams, Prompt } from './request.js';

const PROMPTS: ReadonlySet<string> = new Set<Prompt>(['none', 'login', 'consent', 'select_account']);

/**
 * OIDC Core §3.1.2.1 prompt: a space-delimited list of `none`, `login`, `consent`, `select_account`.
 * campus-sso has one account per browser, so `select_account` shows the consent screen with "Not you?".
 */
export function checkPrompt(params: AuthorizationParams): ReadonlySet<Prompt> {
  const values = scopeTokens(present(params.prompt));
  const unknown = values.find((value) => !PROMPTS.has(value));
  if (unknown !== undefined) throw new InvalidRequest(`prompt value '${unknown}' is not supported`);
  const prompts = new Set(values as Prompt[]);
  // OIDC Core §3.1.2.1: "If this parameter contains none with any other value, an error is returned."
  if (prompts.has('none') && prompts.size > 1) {
    throw new InvalidRequest('prompt=none must not be combined with other prompt values');
  }
  return prompts;
}

/** Whether the raw request asks for prompt=none (before it is validated). */
export function asksForNoPrompt(params: AuthorizationParams): boolean {
  return scopeTokens(present(params.prompt)).includes('none');
}

/** OIDC Core §3.1.2.1 max_age: allowable elapsed time in seconds since the user last signed in. */
export function checkMaxAge(params: AuthorizationParams): number | null {
  const maxAge = present(params.max_age);
  if (maxAge === undefined) return null;
  if (!/^\d{1,10}$/.test(maxAge)) {
    throw new InvalidRequest('max_age must be a non-negative whole number of seconds');
  }
  return Number(maxAge);
}
