/**
 * CSV import of users (README "Admin API"): `uin,password,user_group[,name,email,groups,expires_at]`, header
 * optional (with one, the columns may come in any order). Parsed in the
 * browser with papaparse; rows that cannot be sent (not a number, unknown group, …) get their error here,
 * the rest go to `POST /v1/admin/users/import` in chunks, and every row ends with one result.
 * Every cell is trimmed the same way, the password too (the dialog says so): a padded password cell, as a
 * spreadsheet leaves after "a, b, c", would otherwise create a user whose password nobody can type.
 */
import Papa from 'papaparse';
import { api, USER_GROUPS, type ImportResult, type ImportRow } from '../api';
import { IMPORT_COLUMNS } from '../../../src/shared/people';
import { parseUin, passwordLengthOk } from './validation';

/** The server takes at most 500 rows a call; smaller chunks make the progress bar move smoothly. */
export const IMPORT_CHUNK_SIZE = 200;

export type RowProblem = 'badColumns' | 'badUin' | 'badGroup' | 'badPassword';

export interface ParsedImport {
  /** Rows to send, with their line number in the file. */
  rows: ImportRow[];
  /** Rows rejected before sending; `error` is a RowProblem key (translated by the page). */
  rejected: (ImportResult & { error: RowProblem })[];
}

/**
 * A header line may name the columns (docs/interface.md#people-groups-and-audit) in any order; without one,
 * IMPORT_COLUMNS' order is used.
 */
type Column = (typeof IMPORT_COLUMNS)[number];
const REQUIRED_COLUMNS = 3;

/** Which column each cell position holds, from a header line; undefined when it names an unknown one. */
function headerColumns(cells: readonly string[]): Column[] | undefined {
  const names = cells.map((cell) => cell.trim().toLowerCase());
  if (names.some((name) => !(IMPORT_COLUMNS as readonly string[]).includes(name))) return undefined;
  return names as Column[];
}

export function parseUsersCsv(text: string): ParsedImport {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), { skipEmptyLines: false });
  const rows: ImportRow[] = [];
  const rejected: ParsedImport['rejected'] = [];
  let seenData = false;
  let columns: readonly Column[] | undefined;
  let badHeader = false;
  parsed.data.forEach((cells, index) => {
    const line = index + 1;
    if (cells.every((cell) => cell.trim() === '')) return;
    if (!seenData && (cells[0] ?? '').trim().toLowerCase() === 'uin') {
      seenData = true; // the optional header line
      columns = headerColumns(cells);
      badHeader =
        columns === undefined ||
        !['uin', 'password', 'user_group'].every((c) => columns?.includes(c as Column));
      return;
    }
    seenData = true;
    const byName = new Map<Column, string>();
    const order = columns ?? IMPORT_COLUMNS;
    cells.forEach((cell, position) => {
      const column = order[position];
      if (column !== undefined) byName.set(column, cell);
    });
    const fits = columns
      ? !badHeader && cells.length === columns.length
      : cells.length >= REQUIRED_COLUMNS && cells.length <= IMPORT_COLUMNS.length;
    const uin = parseUin(byName.get('uin') ?? '');
    // Every cell is trimmed, passwords too: a padded cell must not create a user who cannot sign in.
    const password = (byName.get('password') ?? '').trim();
    const userGroup = (byName.get('user_group') ?? '').trim().toLowerCase();
    const problem: RowProblem | undefined = !fits
      ? 'badColumns'
      : uin === undefined
        ? 'badUin'
        : !(USER_GROUPS as readonly string[]).includes(userGroup)
          ? 'badGroup'
          : // No password: the server answers a one-time reset code instead.
            password !== '' && !passwordLengthOk(password)
            ? 'badPassword'
            : undefined;
    if (problem || uin === undefined) {
      rejected.push({ line, uin: uin ?? null, status: 'error', error: problem ?? 'badUin' });
      return;
    }
    const row: ImportRow = { line, uin, password, user_group: userGroup };
    for (const optional of ['name', 'email', 'groups', 'expires_at'] as const) {
      const value = byName.get(optional)?.trim();
      if (value) row[optional] = value;
    }
    rows.push(row);
  });
  return { rows, rejected };
}

/**
 * Sends the rows chunk by chunk, calling `onProgress` with the results so far after each chunk; the reset codes
 * of rows without a password live `codeDays` days.
 * A failed call (network, server error) stops the import and is thrown; the results so far are kept.
 */
export async function sendImport(
  rows: readonly ImportRow[],
  onProgress: (results: ImportResult[]) => void,
  { codeDays, chunkSize = IMPORT_CHUNK_SIZE }: { codeDays?: number; chunkSize?: number } = {},
): Promise<ImportResult[]> {
  const results: ImportResult[] = [];
  for (let start = 0; start < rows.length; start += chunkSize) {
    const answer = await api.importUsers(rows.slice(start, start + chunkSize), codeDays);
    results.push(...answer.results);
    onProgress(results);
  }
  return results;
}

/**
 * The report as CSV (`line,uin,status,error,reset_code`), for the "download" link: the reset codes too, for a
 * school that hands them out its own way (a mail merge) instead of the printed cards.
 */
export function reportCsv(results: readonly ImportResult[]): string {
  return Papa.unparse({
    fields: ['line', 'uin', 'status', 'error', 'reset_code'],
    data: results.map((result) => [
      result.line,
      result.uin ?? '',
      result.status,
      result.error ?? '',
      result.reset_code ?? '',
    ]),
  });
}
