/**
 * The profile fields of the admin API (docs/interface.md#people-groups-and-audit): their schemas and their
 * checks, shared by the user routes, the bulk actions and the app routes.
 */
import { Type } from '@sinclair/typebox';
import { MAX_GROUPS, emailProblem, groupsProblem, nameProblem } from '../../../shared/people.js';
import { badRequest } from '../../api-error.js';

/** A group tag in a body (the pattern again in the handler, for a message that names the rule). */
export const GroupTagSchema = Type.String({ maxLength: 64 });
export const GroupListSchema = Type.Array(GroupTagSchema, { maxItems: MAX_GROUPS });
/** null clears the field. */
export const NullableString = (maxLength: number) => Type.Union([Type.String({ maxLength }), Type.Null()]);
/** An ISO 8601 time (`2026-07-01T00:00:00.000Z`), or null for never. */
export const ExpiresAtSchema = Type.Union([Type.String({ maxLength: 40 }), Type.Null()]);

/** A display name, trimmed; empty or null clears it. */
export function checkedName(name: string | null): string | null {
  if (name === null) return null;
  const problem = nameProblem(name);
  if (problem) throw badRequest(problem);
  const trimmed = name.trim();
  return trimmed === '' ? null : trimmed;
}

/** An email address, trimmed; empty or null clears it. */
export function checkedEmail(email: string | null): string | null {
  if (email === null || email.trim() === '') return null;
  const problem = emailProblem(email.trim());
  if (problem) throw badRequest(problem);
  return email.trim();
}

/** Group tags, without repeats, in the order given. */
export function checkedGroups(groups: readonly string[], field = 'groups'): string[] {
  const unique = [...new Set(groups)];
  const problem = groupsProblem(unique);
  if (problem) throw badRequest(`${field}: ${problem}`);
  return unique;
}

/** An expiry as epoch ms, or null for never. */
export function checkedExpiry(value: string | null): number | null {
  if (value === null || value === '') return null;
  const at = Date.parse(value);
  // Date.parse also reads loose forms; only ISO 8601 dates or date-times are documented.
  if (!/^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) || Number.isNaN(at)) {
    throw badRequest('expires_at must be an ISO 8601 time such as 2026-07-01T00:00:00Z, or null');
  }
  return at;
}
