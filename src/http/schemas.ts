import { type TOptional, type TSchema, Type } from '@sinclair/typebox';
import { MAX_PASSWORD_LENGTH } from '../domain/passwords.js';

/** Shared route-schema pieces. */

/** A uin as a JSON integer (or, from forms and CSV, a string of digits); checked ≤ 2^53−1 by the handler. */
export const UinInput = Type.Union([
  Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  Type.String({ pattern: '^[1-9][0-9]{0,15}$' }),
]);

export const PasswordInput = Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH });

export const ClientIdParam = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' });

/**
 * Members that may be absent, each of the same schema: `...optional(Type.String(), 'code', 'state')`. For the
 * OAuth parameters, known ones are strings sent once (RFC 6749 §3.1: a repeated one arrives as an array and
 * fails the schema).
 */
export function optional<T extends TSchema, const K extends string>(
  schema: T,
  ...names: readonly K[]
): { [P in K]: TOptional<T> } {
  const members = {} as { [P in K]: TOptional<T> };
  for (const name of names) members[name] = Type.Optional(schema) as TOptional<T>;
  return members;
}

const QueryValue = Type.Union([Type.String(), Type.Array(Type.String())]);

/**
 * A query that takes any parameter, each a string or, repeated, strings, and names (documents) the ones the
 * endpoint reads; the handler decides what a repeated one means. Validation accepts what it did before the
 * names were listed.
 */
export function lenientQuery<const K extends string>(...names: readonly K[]) {
  const known = {} as Record<K, TOptional<typeof QueryValue>>;
  for (const name of names) known[name] = Type.Optional(QueryValue);
  return Type.Object(known, { additionalProperties: QueryValue });
}
