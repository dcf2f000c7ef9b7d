/**
 * The CSV user import of the management page (docs/interface.md#admin-api, README `POST /v1/admin/users/import`):
 * the page parses the file and sends rows in chunks; every row is checked on its own and answered with its
 * own result, and an existing uin is never overwritten. Besides `uin,password,user_group`, a row may carry
 * `name,email,groups,expires_at` (groups separated by `;`); a row without a password gets a one-time reset
 * code instead, answered in its result for the printable sign-in cards
 * (docs/interface.md#people-groups-and-audit).
 */
import { emailProblem, groupsProblem, nameProblem, parseGroupList } from '../shared/people.js';
import type { Store, UserGroup } from '../storage/store.js';
import { isUserGroup, userGroupProblem } from '../shared/users.js';
import { type CheckedPassword, checkPassword, passwordProblem } from './passwords.js';
import type { ResetCodeService } from './reset-codes.js';
import type { NewUserProfile, UserService } from './users.js';

/** At most this many rows per call, so one call stays well under a minute of hashing. */
export const MAX_IMPORT_ROWS = 500;

/** argon2id costs ~10 ms and 19 MiB per hash: a few at a time keeps the server responsive to everyone else. */
export const IMPORT_HASH_CONCURRENCY = 4;

/** One row as the page sends it: the CSV columns as papaparse gives them (strings, or absent). */
export interface ImportRow {
  readonly line: number;
  readonly uin?: unknown;
  readonly password?: unknown;
  readonly user_group?: unknown;
  readonly name?: unknown;
  readonly email?: unknown;
  readonly groups?: unknown;
  readonly expires_at?: unknown;
}

export type ImportStatus = 'created' | 'exists' | 'error';

export interface ImportResult {
  readonly line: number;
  /** The uin as a number when it was valid, otherwise what was sent (or null). */
  readonly uin: number | string | null;
  readonly status: ImportStatus;
  readonly error?: string;
  /** A row created without a password: its one-time reset code (shown this once, for the sign-in card). */
  readonly reset_code?: string;
  readonly reset_code_expires_at?: string;
}

interface ValidRow {
  readonly line: number;
  readonly uin: number;
  /** Undefined: the user gets a reset code instead. */
  readonly password: CheckedPassword | undefined;
  readonly userGroup: UserGroup;
  readonly profile: NewUserProfile;
}

type CheckedRow = { readonly valid: ValidRow } | { readonly invalid: ImportResult };

const UIN_RULE = `uin must be a positive whole number up to ${Number.MAX_SAFE_INTEGER}`;

/**
 * A uin from a JSON number or from a CSV cell (a string of digits, surrounding spaces allowed).
 * docs/interface.md#resources: positive, at most 2^53−1 — a longer digit string would silently round, so it
 * is refused.
 */
export function normalizeUin(value: unknown): number | undefined {
  let uin: number;
  if (typeof value === 'number') uin = value;
  else if (typeof value === 'string' && /^[1-9][0-9]*$/.test(value.trim())) uin = Number(value.trim());
  else return undefined;
  return Number.isSafeInteger(uin) && uin > 0 ? uin : undefined;
}

function normalizeGroup(value: unknown): UserGroup | undefined {
  if (typeof value !== 'string') return undefined;
  const group = value.trim().toLowerCase();
  return isUserGroup(group) ? group : undefined;
}

function echoedUin(value: unknown): number | string | null {
  return typeof value === 'number' || typeof value === 'string' ? value : null;
}

/** An optional text cell: absent or blank is undefined; anything but a string is a problem. */
function optionalText(value: unknown): string | undefined | false {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return false;
  return value.trim() === '' ? undefined : value.trim();
}

/**
 * An optional column: absent or blank is undefined, and so is a cell with a problem (anything but a string,
 * or text `read` makes a value of that `problemOf` refuses), which is pushed to `problems`.
 */
function optionalColumn<T>(
  cell: unknown,
  column: string,
  problems: string[],
  read: (text: string) => T,
  problemOf: (value: T) => string | undefined,
): T | undefined {
  const text = optionalText(cell);
  if (text === false) problems.push(`${column} must be text`);
  if (text === false || text === undefined) return undefined;
  const value = read(text);
  const problem = problemOf(value);
  if (problem) problems.push(problem);
  return problem ? undefined : value;
}

const asText = (text: string): string => text;

/** An ISO 8601 date or time as epoch ms; NaN for anything else. */
const readDate = (text: string): number => (/^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN);

const dateProblem = (at: number): string | undefined =>
  Number.isNaN(at) ? 'expires_at must be an ISO 8601 date or time such as 2026-07-01' : undefined;

/** The optional profile columns; each problem is pushed to `problems`. */
function checkProfile(row: ImportRow, problems: string[]): NewUserProfile {
  const name = optionalColumn(row.name, 'name', problems, asText, nameProblem);
  const email = optionalColumn(row.email, 'email', problems, asText, emailProblem);
  const groups = optionalColumn(row.groups, 'groups', problems, parseGroupList, groupsProblem);
  const expiresAt = optionalColumn(row.expires_at, 'expires_at', problems, readDate, dateProblem);
  return {
    ...(name !== undefined && { name }),
    ...(email !== undefined && { email }),
    ...(groups !== undefined && { groups }),
    ...(expiresAt !== undefined && { expiresAt }),
  };
}

/** Checks one row; every problem of the row is named in its error. */
export function checkImportRow(row: ImportRow): CheckedRow {
  const problems: string[] = [];
  const uin = normalizeUin(row.uin);
  if (row.uin === undefined || row.uin === '') problems.push('uin is missing');
  else if (uin === undefined) problems.push(UIN_RULE);

  // The password is taken exactly as written: trimming would silently change it. None: a reset code.
  let password: CheckedPassword | undefined;
  if (row.password === undefined || row.password === null || row.password === '') password = undefined;
  else if (typeof row.password !== 'string') problems.push('password must be text');
  else if (uin !== undefined) {
    // Checked once: UserService.create takes the checked password without checking it again.
    const checked = checkPassword(row.password, uin);
    if ('problem' in checked) problems.push(checked.problem);
    else password = checked;
  } else {
    // The row is refused for its uin already; its password's own problems are reported with it.
    const problem = passwordProblem(row.password);
    if (problem) problems.push(problem);
  }

  const userGroup = normalizeGroup(row.user_group);
  if (userGroup === undefined) problems.push(userGroupProblem(row.user_group) ?? 'user_group is invalid');
  const profile = checkProfile(row, problems);

  if (problems.length > 0 || uin === undefined || userGroup === undefined) {
    return {
      invalid: {
        line: row.line,
        uin: uin ?? echoedUin(row.uin),
        status: 'error',
        error: problems.join('; '),
      },
    };
  }
  return { valid: { line: row.line, uin, password, userGroup, profile } };
}

/** Runs `task` over `items` with at most `limit` in flight; the answers keep the items' order. */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export interface ImportServices {
  readonly store: Store;
  readonly users: UserService;
  readonly resetCodes: ResetCodeService;
}

/**
 * Imports rows: invalid rows are reported, a uin already taken is reported as `exists` (never overwritten),
 * a uin repeated inside the same call is an error on its later lines, and the rest are created: with a
 * password to be changed at their first sign-in, or with a reset code when the row has no password (valid
 * `resetCodeDays` days, or 24 hours).
 */
export async function importUsers(
  { store, users, resetCodes }: ImportServices,
  rows: readonly ImportRow[],
  { resetCodeDays }: { readonly resetCodeDays?: number | undefined } = {},
): Promise<ImportResult[]> {
  const firstLineOfUin = new Map<number, number>();
  const checked = rows.map((row): CheckedRow => {
    const result = checkImportRow(row);
    if ('invalid' in result) return result;
    const { uin, line } = result.valid;
    const firstLine = firstLineOfUin.get(uin);
    if (firstLine !== undefined) {
      return {
        invalid: { line, uin, status: 'error', error: `uin ${uin} already appears on line ${firstLine}` },
      };
    }
    firstLineOfUin.set(uin, line);
    return result;
  });

  return mapWithConcurrency(checked, IMPORT_HASH_CONCURRENCY, async (row): Promise<ImportResult> => {
    if ('invalid' in row) return row.invalid;
    const { line, uin, password, userGroup, profile } = row.valid;
    // Look first, so an existing uin costs no password hash; insert still refuses a uin taken meanwhile.
    if (await store.users.find(uin)) return { line, uin, status: 'exists' };
    if (password !== undefined) {
      // Whoever wrote the file knows the password: it must be changed at the next sign-in (docs/security.md).
      const created = await users.create(uin, password, userGroup, { ...profile, mustChangePassword: true });
      return { line, uin, status: created ? 'created' : 'exists' };
    }
    if (!(await users.createWithoutPassword(uin, userGroup, profile))) return { line, uin, status: 'exists' };
    const { code, expiresAt } = await resetCodes.issue(uin, resetCodeDays);
    return {
      line,
      uin,
      status: 'created',
      reset_code: code,
      reset_code_expires_at: new Date(expiresAt).toISOString(),
    };
  });
}
