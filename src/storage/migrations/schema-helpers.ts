/**
 * The vocabulary the migrations are written in (docs/architecture.md#storage): each migration is a list of
 * the tables, columns and indexes it adds, and these helpers issue exactly the statements Kysely's schema
 * builder would, one per table, column or index, in the order listed. A migration that has run somewhere
 * never changes what it issues: a new column or index is a new migration.
 */
import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, sql } from 'kysely';

/** The column types one schema for SQLite and PostgreSQL uses: times are epoch-ms BIGINTs, flags 0/1. */
export type PortableType = 'text' | 'bigint' | 'integer';

/**
 * What a column is beyond its type, as its SQL reads; a column without one is nullable with no default.
 * Every default in this schema comes with `not null`.
 */
export type Constraint =
  'primary key' | 'not null' | 'not null unique' | { readonly notNullDefault: string | number };

/** One column: its name, type and constraint. */
export type Column = readonly [name: string, type: PortableType, constraint?: Constraint];

function constrain(
  column: ColumnDefinitionBuilder,
  constraint: Constraint | undefined,
): ColumnDefinitionBuilder {
  if (constraint === undefined) return column;
  if (constraint === 'primary key') return column.primaryKey();
  if (constraint === 'not null') return column.notNull();
  if (constraint === 'not null unique') return column.notNull().unique();
  return column.notNull().defaultTo(constraint.notNullDefault);
}

/** When a short-lived row (a session, code, token, pending sign-in) was made and when it lapses, epoch ms. */
export const LIFETIME: readonly Column[] = [
  ['created_at', 'bigint', 'not null'],
  ['expires_at', 'bigint', 'not null'],
];

export interface TableOptions {
  /** A composite primary key, as the constraint `<table>_pk`. */
  readonly primaryKey?: readonly string[];
}

/** `create table` with these columns, in this order. */
export async function createTable(
  db: Kysely<unknown>,
  table: string,
  columns: readonly Column[],
  options: TableOptions = {},
): Promise<void> {
  let builder: CreateTableBuilder<string, string> = db.schema.createTable(table);
  for (const [name, type, constraint] of columns) {
    builder = builder.addColumn(name, type, (c) => constrain(c, constraint));
  }
  if (options.primaryKey) builder = builder.addPrimaryKeyConstraint(`${table}_pk`, [...options.primaryKey]);
  await builder.execute();
}

/** One `alter table … add column` per column (SQLite adds one column per statement), in this order. */
export async function addColumns(
  db: Kysely<unknown>,
  table: string,
  columns: readonly Column[],
): Promise<void> {
  for (const [name, type, constraint] of columns) {
    await db.schema
      .alterTable(table)
      .addColumn(name, type, (c) => constrain(c, constraint))
      .execute();
  }
}

export interface IndexSpec {
  readonly columns: readonly string[];
  readonly unique?: true;
  /** A partial index over the rows where this column is not null. */
  readonly whereNotNull?: string;
}

/** An index's columns, or its columns and what else it is. */
export type Index = readonly string[] | IndexSpec;

/** One `create index` per entry, named by its key, in the order listed (an index name is never a number). */
export async function createIndexes(
  db: Kysely<unknown>,
  table: string,
  indexes: Readonly<Record<string, Index>>,
): Promise<void> {
  for (const [name, index] of Object.entries(indexes)) {
    const spec: IndexSpec = 'columns' in index ? index : { columns: index };
    let builder = db.schema
      .createIndex(name)
      .on(table)
      .columns([...spec.columns]);
    if (spec.unique) builder = builder.unique();
    if (spec.whereNotNull !== undefined) builder = builder.where(sql.ref(spec.whereNotNull), 'is not', null);
    await builder.execute();
  }
}
