/**
 * The CSV user import of the management page (docs/interface.md#admin-api, `POST /v1/admin/users/import`):
 * the page parses the file and sends rows in chunks; every row is checked on its own and answered with its
 * own result, and an existing uin is never overwritten.
 */
import { USER_GROUPS, type Store, type UserGroup } from '../storage/store.js';
import { passwordProblem } from './passwords.js';
import type { UserService } from './users.js';

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
}

export type ImportStatus = 'created' | 'exists' | 'error';

export interface ImportResult {
  readonly line: number;
  /** The uin as a number when it was valid, otherwise what was sent (or null). */
  readonly uin: number | string | null;
  readonly status: ImportStatus;
  readonly error?: string;
}

interface ValidRow {
  readonly line: number;
  readonly uin: number;
  readonly password: string;
  readonly userGroup: UserGroup;
}

type CheckedRow = { readonly valid: ValidRow } | { readonly invalid: ImportResult };

const UIN_RULE = `uin must be a positive whole number up to ${Number.MAX_SAFE_INTEGER}`;

/**
 * A uin from a JSON number or from a CSV cell (a string of digits, surrounding spaces allowed).
 * docs/interface.md#user: positive, at most 2^53−1 — a longer digit string would silently round, so it is
 * refused.
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
  return (USER_GROUPS as readonly string[]).includes(group) ? (group as UserGroup) : undefined;
}

function echoedUin(value: unknown): number | string | null {
  return typeof value === 'number' || typeof value === 'string' ? value : null;
}

/** Checks one row; every problem of the row is named in its error. */
export function checkImportRow(row: ImportRow): CheckedRow {
  const problems: string[] = [];
  const uin = normalizeUin(row.uin);
  if (row.uin === undefined || row.uin === '') problems.push('uin is missing');
  else if (uin === undefined) problems.push(UIN_RULE);

  // The password is taken exactly as written: trimming would silently change it.
  if (typeof row.password !== 'string' || row.password === '') problems.push('password is missing');
  else {
    const problem = passwordProblem(row.password, uin);
    if (problem) problems.push(problem);
  }

  const userGroup = normalizeGroup(row.user_group);
  if (userGroup === undefined) problems.push(`user_group must be one of ${USER_GROUPS.join(', ')}`);

  if (
    problems.length > 0 ||
    uin === undefined ||
    userGroup === undefined ||
    typeof row.password !== 'string'
  ) {
    return {
      invalid: {
        line: row.line,
        uin: uin ?? echoedUin(row.uin),
        status: 'error',
        error: problems.join('; '),
      },
    };
  }
  return { valid: { line: row.line, uin, password: row.password, userGroup } };
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

/**
 * Imports rows: invalid rows are reported, a uin already taken is reported as `exists` (never overwritten),
 * a uin repeated inside the same call is an error on its later lines, and the rest are created, with a
 * password to be changed at their first sign-in.
 */
export async function importUsers(
  store: Store,
  users: UserService,
  rows: readonly ImportRow[],
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
    const { line, uin, password, userGroup } = row.valid;
    // Look first, so an existing uin costs no password hash; insert still refuses a uin taken meanwhile.
    if (await store.users.find(uin)) return { line, uin, status: 'exists' };
    // Whoever wrote the file knows the password: it must be changed at the next sign-in (docs/security.md).
    const created = await users.create(uin, password, userGroup, { mustChangePassword: true });
    return { line, uin, status: created ? 'created' : 'exists' };
  });
}
