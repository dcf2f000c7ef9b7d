/** Campux's values as GORM and Go stored them, read into ours (src/domain/campux-import.ts). */

/** GORM stores times as text (`2024-04-18 08:49:37.275+08:00`, CST) or, in some versions, as numbers. */
export function parseCampuxTime(value: unknown, fallback: number): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value < 1e12 ? value * 1000 : value;
  if (typeof value === 'string' && value.trim() !== '') {
    let text = value.trim();
    // "2024-04-18 08:49:37.275848+08:00" → ISO form JavaScript parses; trim sub-millisecond digits.
    text = text
      .replace(' ', 'T')
      .replace(/(\.\d{3})\d+/, '$1')
      .replace(/ ?([+-]\d{2})(\d{2})$/, '$1:$2');
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) text += '+08:00';
    const parsed = Date.parse(text);
    if (Number.isFinite(parsed)) return parsed;
  }
  return fallback;
}

/**
 * Campux's `util.StrArray` is stored as `json.Marshal` output; Go's SQLite driver binds that `[]byte` as a
 * BLOB even though GORM declares the column `text`, so the value arrives as bytes. Text (older hand-made
 * rows), an array (MongoDB) and a blank-separated list are accepted too.
 */
export function parseRedirectUris(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((u): u is string => typeof u === 'string');
  const text = value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value;
  if (typeof text !== 'string' || text.trim() === '') return [];
  const trimmed = text.trim();
  if (trimmed.startsWith('[') || trimmed === 'null') {
    try {
      return parseRedirectUris(JSON.parse(trimmed) as unknown);
    } catch {
      return [];
    }
  }
  return trimmed.split(/[\s,]+/).filter((u) => u !== '');
}
