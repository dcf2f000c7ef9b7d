/** Dates typed in `<input type="date">` (YYYY-MM-DD, the person's own time zone) and the API's ISO times. */

/** The start of that day where the browser is, as an ISO time; null for an empty field. */
export function dayToIso(day: string): string | null {
  if (day === '') return null;
  const date = new Date(`${day}T00:00:00`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** The day (where the browser is) of an ISO time, for a date field; '' for none. */
export function isoToDay(iso: string | null): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
