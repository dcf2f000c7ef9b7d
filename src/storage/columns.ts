/**
 * How a record's fields are stored (docs/architecture.md#storage): each in the column named after it in
 * snake_case (`redirectUris` in `redirect_uris`), a boolean as 0 or 1 (SQLite has no boolean type), a list as
 * JSON text, anything else as it is. The row mappers and the updates of every table that follows the rule
 * build their rows here; a field stored another way (a time as text, an object in two columns) is mapped
 * beside the call.
 */
import { bit } from './connection.js';

/** `redirectUris` → `redirect_uris`. */
type Column<Field extends string> = Field extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${Column<Tail>}`
  : Field;

/** Not a column value: an object field must be mapped by its caller. */
interface NotStoredByRule<Value> {
  readonly mapBesideTheCall: Value;
}

type Stored<Value> = Value extends boolean
  ? number
  : Value extends readonly unknown[]
    ? string
    : Value extends object
      ? NotStoredByRule<Value>
      : Value;

/** The columns `fields` are stored in; a field that is undefined (not given) has none. */
export type Columns<Fields> = {
  -readonly [Field in keyof Fields as Column<Field & string>]: Stored<Fields[Field]>;
};

const columnNames = new Map<string, string>();

function columnName(field: string): string {
  let column = columnNames.get(field);
  if (column === undefined) {
    column = field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    columnNames.set(field, column);
  }
  return column;
}

function stored(value: unknown): unknown {
  if (typeof value === 'boolean') return bit(value);
  if (Array.isArray(value)) return JSON.stringify(value);
  return value;
}

/** The columns `fields` are stored in, by the rule above; fields that are undefined are left out. */
export function columns<Fields extends object>(fields: Fields): Columns<Fields> {
  const row: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (value !== undefined) row[columnName(field)] = stored(value);
  }
  return row as Columns<Fields>;
}
