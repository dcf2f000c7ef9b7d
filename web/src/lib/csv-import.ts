/**
 * CSV import of users (README "Admin API"): `uin,password,user_group`, header optional. Parsed in the
 * browser with papaparse; rows that cannot be sent (not a number, unknown group, …) get their error here,
 * the rest go to `POST /v1/admin/users/import` in chunks, and every row ends with one result.
 * Every cell is trimmed the same way, the password too (the dialog says so): a padded password cell, as a
 * spreadsheet leaves after "a, b, c", would otherwise create a user whose password nobody can type.
 */
import Papa from 'papaparse';
import { api, USER_GROUPS, type ImportResult, type ImportRow } from '../api';
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

export function parseUsersCsv(text: string): ParsedImport {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), { skipEmptyLines: false });
  const rows: ImportRow[] = [];
  const rejected: ParsedImport['rejected'] = [];
  let seenData = false;
  parsed.data.forEach((cells, index) => {
    const line = index + 1;
    if (cells.every((cell) => cell.trim() === '')) return;
    const [uinText = '', rawPassword = '', group = ''] = cells;
    const password = rawPassword.trim();
    if (!seenData && uinText.trim().toLowerCase() === 'uin') {
      seenData = true; // the optional header line
      return;
    }
    seenData = true;
    const uin = parseUin(uinText);
    const userGroup = group.trim().toLowerCase();
    const problem: RowProblem | undefined =
      cells.length !== 3
        ? 'badColumns'
        : uin === undefined
          ? 'badUin'
          : !(USER_GROUPS as readonly string[]).includes(userGroup)
            ? 'badGroup'
            : !passwordLengthOk(password)
              ? 'badPassword'
              : undefined;
    if (problem || uin === undefined) {
      rejected.push({ line, uin: uin ?? null, status: 'error', error: problem ?? 'badUin' });
    } else {
      rows.push({ line, uin, password, user_group: userGroup });
    }
  });
  return { rows, rejected };
}

/**
 * Sends the rows chunk by chunk, calling `onProgress` with the results so far after each chunk.
 * A failed call (network, server error) stops the import and is thrown; the results so far are kept.
 */
export async function sendImport(
  rows: readonly ImportRow[],
  onProgress: (results: ImportResult[]) => void,
  chunkSize = IMPORT_CHUNK_SIZE,
): Promise<ImportResult[]> {
  const results: ImportResult[] = [];
  for (let start = 0; start < rows.length; start += chunkSize) {
    const answer = await api.importUsers(rows.slice(start, start + chunkSize));
    results.push(...answer.results);
    onProgress(results);
  }
  return results;
}

/** The report as CSV (`line,uin,status,error`), for the "download" link. */
export function reportCsv(results: readonly ImportResult[]): string {
  return Papa.unparse({
    fields: ['line', 'uin', 'status', 'error'],
    data: results.map((result) => [result.line, result.uin ?? '', result.status, result.error ?? '']),
  });
}
