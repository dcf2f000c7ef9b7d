/**
 * A value refused by one of the domain's rules (docs/security.md#one-rule-one-place): the password policy,
 * the app-name rule, the user groups. The domain service that every route, command and import calls throws
 * it, whatever a route's schema let through; the HTTP layer renders it 400 with its reason
 * (src/http/responses.ts), the command line prints it.
 */
export class RuleViolation extends Error {
  override readonly name = 'RuleViolation';
}

/** Throws RuleViolation(`problem`) when there is one. */
export function enforce(problem: string | undefined): void {
  if (problem !== undefined) throw new RuleViolation(problem);
}
